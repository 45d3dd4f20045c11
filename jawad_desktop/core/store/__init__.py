"""Where things are kept: profile paths, settings, secrets (keyring), conversations, page cache,
and model files downloaded from the Hugging Face hub (``hub``)."""
