"""What loads before the window's first frame, and what the idle app has not loaded: the heavy
modules (models, numbers, the network client, tokenizers, speech) come with their first use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# The first frame is the window's frame with its browser: none of the assistant is needed for it.
NOT_IN_THE_FIRST_FRAME = [
    "asyncio", "qasync", "pydantic", "httpx", "numpy", "tiktoken", "keyring", "sqlite3", "faster_whisper",
    "onnxruntime", "sounddevice", "trafilatura", "jawad_desktop.core.context", "jawad_desktop.core.assistant",
    "jawad_desktop.core.store.settings_file", "jawad_desktop.ui.chat.chat_view", "jawad_desktop.ui.chat.presenter",
]
# The idle window, built, with no document searched, no date typed, no folder watched, no model run.
NOT_IN_THE_IDLE_APP = [
    "click", "rich", "pygments",  # httpx's command line (jawad_desktop/__init__.py)
    "watchfiles", "dateutil", "tiktoken", "faster_whisper", "onnxruntime", "ctranslate2", "llama_cpp",
    "trafilatura", "lxml", "bs4", "mcp",
    "numpy", "sounddevice",  # voice capture and transcription: made at the mic's first use (ui.window.window_voice)
    # the keyring, looked for at start only when the settings keep a secret (core.context.keeps_secrets)
    "keyring", "secretstorage", "jeepney", "cryptography",
    # the HTTP client's transport: a first start asks with HTTP only where a local server listens
    # (core.llm.discovery.discover_providers)
    "httpcore", "anyio", "h11", "certifi",
    # the HTTP client's; httpx itself is checked by module name below: the package list always holds
    # "httpx", because jawad_desktop/__init__.py marks httpx._main absent in sys.modules (httpx's command line)
    "idna",
    # pydantic's plugin loader's (jawad_desktop/__init__.py: Jawad uses no pydantic plugin): importlib.metadata
    # (checked by module name below) and what it imports
    "email", "csv",
]
# The assistant (its agent, tools, permission gate, model client and page driver): built at its
# first need, the first message, Research, Compare, a project, Settings or a web page browsed.
ASSISTANT_NOT_IN_THE_IDLE_APP = [
    "jawad_desktop.core.assistant", "jawad_desktop.core.agent.session", "jawad_desktop.core.tools.registry",
    "jawad_desktop.core.harbor.engine", "jawad_desktop.core.harbor.gate", "jawad_desktop.core.llm.client",
    "jawad_desktop.core.research.executor", "jawad_desktop.browser.driver",
    "httpx",  # the HTTP client: the first start finds providers without it (core.llm.discovery)
]

# The window shown as the app shows it first (argv[1]: the profile); the scripts below go on from it.
WINDOW = """
import os, sys
from jawad_desktop.ui.app.application import create_application
app = create_application(headless=True)
from jawad_desktop.core.store.first_frame import peek_first_frame
from jawad_desktop.core.store.paths import AppPaths
from jawad_desktop.ui.window.main_window import MainWindow
paths = AppPaths.for_profile(sys.argv[1])
window = MainWindow(frame=peek_first_frame(paths.settings_file), data_dir=paths.data)
window.show()
app.processEvents()
"""
LOADED = """print(" ".join(m for m in sys.argv[2:] if m in sys.modules), flush=True)
os._exit(0)
"""
FRAME = WINDOW + LOADED


def _env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen",
            "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}


def _loaded(script: str, profile: Path, modules: list[str]) -> list[str]:
    """Which of ``modules`` the script (``FRAME`` or ``BUILD``) had loaded, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", script, str(profile), *modules],
                         capture_output=True, text=True, timeout=120, env=_env(), stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.split()


def test_the_first_frame_loads_none_of_the_assistant(tmp_path: Path) -> None:
    assert _loaded(FRAME, tmp_path / "p", NOT_IN_THE_FIRST_FRAME) == []


# How many of the Python enums of Qt's namespace (``Qt.AlignmentFlag``...) exist: PySide builds all
# 90-odd at the first use of one (15 ms), even through an overload it only tries (``QColor(QColor)``).
QT_ENUMS = """import enum, gc
print(sum(1 for o in gc.get_objects() if isinstance(o, enum.EnumType) and o.__qualname__.startswith("Qt.")))
os._exit(0)
"""


def test_the_first_frame_builds_no_enum_of_qts_namespace(tmp_path: Path) -> None:
    # The start page's light or dark comes from the palette, not from Qt's colour-scheme hint.
    out = subprocess.run([sys.executable, "-c", WINDOW + QT_ENUMS, str(tmp_path / "p")],
                         capture_output=True, text=True, timeout=120, env=_env(), stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["0"]


# The Python enums of Qt classes the first frame does not use: its menus are empty and its browser's keys
# come with the build (QAction, QKeySequence), its fonts are the application's (QFont), a first start has no
# saved geometry (QByteArray). PySide makes all of a class's enums when the class is first imported (5 ms).
LATER_CLASSES = ("QAction.", "QKeySequence.", "QFont.", "QByteArray.")
CLASS_ENUMS = f"""import enum, gc
print(sorted({{o.__qualname__ for o in gc.get_objects() if isinstance(o, enum.EnumType)
              and o.__qualname__.startswith({LATER_CLASSES!r})}}))
os._exit(0)
"""


def test_the_first_frame_makes_no_qt_class_it_does_not_use(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", WINDOW + CLASS_ENUMS, str(tmp_path / "p")],
                         capture_output=True, text=True, timeout=120, env=_env(), stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "[]"


# The window built (chat, log, model picker, menus) before the assistant, the first start's search
# for providers or any connection: the network client and the model clients come with those.
NOT_IN_THE_WINDOW_BUILD = [
    "httpx", "urllib.request", "jawad_desktop.core.llm.client", "jawad_desktop.core.llm.provider_clients",
    "jawad_desktop.core.tools", "jawad_desktop.core.tools.page", "jawad_desktop.core.assistant",
]

BUILD = WINDOW + """import asyncio, qasync
from jawad_desktop.core.context import AppContext
asyncio.set_event_loop(qasync.QEventLoop(app))
async def build():
    window.build(AppContext.open(sys.argv[1], defer_keyring=True))
""" + "\n".join("    " + line for line in LOADED.splitlines()) + """
asyncio.get_event_loop().run_until_complete(build())
"""


def test_building_the_window_loads_no_network_client_nor_tools(tmp_path: Path) -> None:
    assert _loaded(BUILD, tmp_path / "p", NOT_IN_THE_WINDOW_BUILD) == []


def test_the_idle_app_has_not_loaded_what_it_has_not_used(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    out = subprocess.run([sys.executable, "-m", "jawad_desktop", "--profile", str(tmp_path / "p"),
                          "--startup-report", str(report)],
                         capture_output=True, text=True, timeout=120, env=_env(), stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    data = json.loads(report.read_text())
    loaded = set(data["packages"])
    assert "jawad_desktop" in loaded and "PySide6" in loaded  # the report lists what was imported
    # The CPU time used by the first frame, for the start-up benchmark (benchmarks/bench_startup.py).
    assert 0 < data["shown_cpu_s"] < 60
    assert 0 < data["idle_anon_kb"] < data["idle_pss_kb"]  # the tree's heaps, part of its memory
    assert sorted(loaded & set(NOT_IN_THE_IDLE_APP)) == []
    modules = set(data["modules"])
    assert "jawad_desktop.ui.chat.history_sidebar" in modules  # the history is there, its assistant is not
    assert sorted(modules & set(ASSISTANT_NOT_IN_THE_IDLE_APP)) == []
    assert "pydantic" in loaded and "importlib.metadata" not in modules


LINECACHE = """
import linecache, sys
from jawad_desktop.ui.app import qt_env
qt_env.prepare(headless=True)
import jawad_desktop.ui.window.main_window, jawad_desktop.core.store.paths
feature = sys.modules["shibokensupport.feature"].pyside_feature_dict
print(sum(1 for name in linecache.cache if "jawad_desktop" in name),
      feature["jawad_desktop.ui.look.theme"], feature["jawad_desktop.core.store.first_frame"])
"""


def test_imports_after_pyside_keep_no_source_in_memory() -> None:
    # PySide6's own check read each module's source into linecache (13 MB at idle); the app's
    # check keeps nothing and gives the same answers: 0 for a module naming PySide6, -1 otherwise.
    out = subprocess.run([sys.executable, "-c", LINECACHE], capture_output=True, text=True, timeout=120,
                         env=_env(), stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["0", "0", "-1"]


# A plain window start (the ``jawad`` command, its value options, each once) is parsed without
# argparse; anything else goes to the parser, which words help and errors.
WINDOW_STARTS = [[], ["--profile", "p"], ["--startup-report", "r.json", "--log-level", "debug"],
                 ["--screenshot", "s.png", "--profile", "", "--log-level", "error", "--startup-report", "r"]]
PARSER_STARTS = [["-h"], ["--version"], ["--self-test"], ["ask", "hi"], ["--profile"], ["--profile", "-x"],
                 ["--log-level", "loud"], ["--profile=p"], ["--prof", "p"], ["--profile", "a", "--profile", "b"],
                 ["--log-level", "info", "history"], ["unknown", "command"]]


def test_a_plain_window_start_is_parsed_as_the_parser_would_without_importing_it() -> None:
    from jawad_desktop import cli

    for argv in WINDOW_STARTS:
        fast = cli._window_start(argv)
        assert fast is not None, argv
        assert vars(fast) == vars(cli.build_parser([]).parse_args(argv)), argv
    for argv in PARSER_STARTS:
        assert cli._window_start(argv) is None, argv
    script = ("import sys\nfrom jawad_desktop import cli\n"
              "assert cli._window_start(['--startup-report', 'r'])\nprint('argparse' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=_env())
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["False"]


def test_the_page_script_the_browser_holds_is_not_kept_again_in_python(qapp: Any) -> None:
    import tracemalloc

    import shiboken6
    from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineProfile

    from jawad_desktop.browser.guarded_page import SCRIPT_NAME, install_page_script
    from jawad_desktop.core.tools import page as _page_module  # noqa: F401  (its code is not what is measured)

    profile = QWebEngineProfile()
    page = QWebEnginePage(profile)
    tracemalloc.start()
    try:
        install_page_script(page)
        kept, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    try:
        assert len(page.scripts().find(SCRIPT_NAME)) == 1
        assert kept < 200_000  # the library and its reader, 0.8 MB, live in the browser's copy alone
    finally:
        shiboken6.delete(page)
        shiboken6.delete(profile)


FOCUS_ORDER = """
import gc, os, sys
from jawad_desktop.ui.app.application import create_application
app = create_application(headless=True)
from PySide6.QtCore import QTimer
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget
from jawad_desktop.ui.window.focus_order import order_focus_chain
root = QWidget()
row = QHBoxLayout(root)
row.addWidget(QLineEdit(root))
row.addWidget(QPushButton("Send", root))
QTimer(root)  # a child that is no widget
label = QLabel("<b>No chats yet.</b>", root)  # as the empty chat's text: selectable, not a stop for Tab
label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
row.addWidget(label)  # its child: a kind of Qt's own that PySide does not know (QWidgetTextControl)
def classes():
    return {o for o in gc.get_objects() if isinstance(o, type) and o.__module__.startswith("PySide6")}
before = classes()
chain = order_focus_chain(root)
print(len(chain), len(classes() - before))
os._exit(0)
"""


def test_ordering_the_focus_chain_makes_no_python_class_of_qts_object_kinds() -> None:
    # Walking the window's children as QObjects made PySide create the Python class of every
    # QObject kind it tried on them (236 classes, 1.3 MB of the idle app); as widgets, none.
    out = subprocess.run([sys.executable, "-c", FOCUS_ORDER], capture_output=True, text=True, timeout=120,
                         env=_env(), stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    stops, new_classes = map(int, out.stdout.split())
    assert stops == 2 and new_classes < 10, out.stdout
