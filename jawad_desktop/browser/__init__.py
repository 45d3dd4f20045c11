"""The QtWebEngine page driver: the core's Page on real tabs, for the window and the terminal."""
