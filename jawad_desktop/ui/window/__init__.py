"""The main window and what it lays out around the chat: the browser pane, the action log, menus and dialogs."""
