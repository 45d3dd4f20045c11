"""Where things are kept: profile paths, settings, secrets (keyring), conversations, page cache."""
