"""The Qt edge: windows, dialogs, widgets, the QtWebEngine page driver, and the bridge that
turns core events into signals and user actions into core calls. No business logic here."""
