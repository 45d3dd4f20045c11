"""The Settings dialog and every one of its pages."""
