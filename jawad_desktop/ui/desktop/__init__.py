"""The window's life beyond its frame: tray icon, global hotkeys, quick-ask box and notifications."""
