"""The Qt edge: windows, dialogs and widgets in rooms (app, look, window, chat, prompts, settings,
desktop), and the bridge that turns core events into signals and user actions into core calls.
No business logic here; the page driver is ``jawad_desktop.browser``, below."""
