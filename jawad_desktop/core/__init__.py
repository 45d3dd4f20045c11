"""The assistant itself: plain asyncio, importable without Qt.

Nothing below this package may import PySide6, shiboken6 or qasync (a test checks it).
"""
