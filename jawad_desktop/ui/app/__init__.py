"""Starting and ending the GUI, the core's events as Qt signals, background work and the words for what went wrong."""
