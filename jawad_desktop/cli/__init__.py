"""The ``jawad`` command: the GUI by default, and subcommands that drive the same core.

Each subcommand lives in its own module under ``jawad_desktop.cli`` with a ``register``
function that adds its parser and sets ``handler`` (sync or async, ``(args, ctx) -> int``).
A command made of actions (``jawad history list``) declares them with ``cli.actions``. The
``--profile``/``--log-level`` options are added here, after ``register``, to the command's
parser and to each of its actions' parsers.
Exit codes: 0 success, 1 a failure the user is told about, 2 wrong usage, 130 interrupted.
Failures are printed as friendly text on stderr, never as a traceback; the traceback of an
unexpected failure goes to the log file.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from jawad_desktop import APP_NAME, __version__
from jawad_desktop.core.errors import JawadError

if TYPE_CHECKING:
    import argparse  # imported where a parser is built: a plain window start has none (_window_start)

    from jawad_desktop.core.store.paths import AppPaths

log = logging.getLogger("jawad.cli")

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

LOG_LEVELS = ["debug", "info", "warning", "error"]
DEFAULT_LOG_LEVEL = "warning"

# Subcommand modules, in the order `jawad --help` lists them.
COMMAND_MODULES: list[str] = [
    "jawad_desktop.cli.ask_cmd",
    "jawad_desktop.cli.providers_cmd",
    "jawad_desktop.cli.history_cmd",
    "jawad_desktop.cli.prices_cmd",
    "jawad_desktop.cli.transcribe_cmd",
    "jawad_desktop.cli.listen_cmd",
    "jawad_desktop.cli.talk_cmd",
    "jawad_desktop.cli.wake_cmd",
    "jawad_desktop.cli.voice_pack_cmd",
    "jawad_desktop.cli.read_page_cmd",
    "jawad_desktop.cli.research_cmd",
    "jawad_desktop.cli.mcp_cmd",
    "jawad_desktop.cli.docs_cmd",
    "jawad_desktop.cli.memory_cmd",
    "jawad_desktop.cli.tasks_cmd",
    "jawad_desktop.cli.compare_cmd",
    "jawad_desktop.cli.projects_cmd",
    "jawad_desktop.cli.backup_cmd",
    "jawad_desktop.cli.restore_cmd",
    "jawad_desktop.cli.import_cmd",
    "jawad_desktop.cli.models_cmd",
]


def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse's parser with a friendlier error line (and exit code 2)."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            self.print_usage(sys.stderr)
            self.exit(EXIT_USAGE, f"{self.prog}: {message}\nRun '{self.prog} --help' for the options.\n")

    return _Parser


def add_global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """Options every command accepts, before or after the command's name."""
    import argparse

    default = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--profile",
        metavar="DIR",
        default=default,
        help="keep settings, data, cache and logs under DIR (portable use, tests)",
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default=DEFAULT_LOG_LEVEL if top else argparse.SUPPRESS,
        help="how much to log to stderr (everything goes to the log file)",
    )


def add_actions(subparsers: Any, name: str, *, help: str, description: str, dest: str,
                handler: Callable[..., Any]) -> tuple[argparse.ArgumentParser, Any]:
    """The parser of command ``name`` and its required ``ACTION`` subparsers, whose name
    lands in ``args.<dest>``; every action runs ``handler``, which dispatches on it."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help, description=description)
    actions = parser.add_subparsers(dest=dest, metavar="ACTION", parser_class=type(parser))
    actions.required = True
    parser.set_defaults(handler=handler)
    return parser, actions


def _add_command_options(parser: argparse.ArgumentParser) -> None:
    """The global options on a command's parser and on each of its actions' (after their own
    arguments, so ``--help`` lists the command's options first)."""
    import argparse

    add_global_options(parser, top=False)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            # choices maps names and aliases to parsers: each parser once
            for sub in {id(p): p for p in action.choices.values()}.values():
                _add_command_options(sub)


def command_name(module: str) -> str:
    """``jawad_desktop.cli.read_page_cmd`` -> ``read-page``."""
    return module.rsplit(".", 1)[-1].removesuffix("_cmd").replace("_", "-")


def _wanted_modules(argv: Sequence[str] | None) -> list[str]:
    """Only the module of the command asked for, so the GUI starts without importing every
    command's dependencies; all of them for help."""
    args = list(sys.argv[1:] if argv is None else argv)
    by_name = {command_name(m): m for m in COMMAND_MODULES}
    positional: list[str] = []
    skip = False
    for token in args:
        if skip:
            skip = False
        elif token in _VALUE_OPTIONS:
            skip = True
        elif not token.startswith("-"):
            positional.append(token)
    if positional and positional[0] in by_name:
        return [by_name[positional[0]]]
    if positional or any(t in ("-h", "--help") for t in args):
        return list(COMMAND_MODULES)  # help, or an unknown command: argparse lists them all
    return []


# The top-level options that take a value, and the name argparse keeps each under.
_VALUE_OPTIONS = {"--profile": "profile", "--log-level": "log_level", "--screenshot": "screenshot",
                  "--startup-report": "startup_report"}


def _window_start(args: Sequence[str]) -> SimpleNamespace | None:
    """The options of a plain window start (no command and no option but the value options, each
    once, as ``--option VALUE``) as the parser would give them, without argparse: its import and
    its parsers took 8 ms before the window's frame. None for anything else (help, a command, a
    flag, a wrong value...): the parser parses it, and words its errors."""
    if len(args) % 2:
        return None
    given = dict(zip(args[::2], args[1::2], strict=True))
    if len(given) * 2 != len(args) or any(o not in _VALUE_OPTIONS or v.startswith("-") for o, v in given.items()):
        return None
    if given.get("--log-level", DEFAULT_LOG_LEVEL) not in LOG_LEVELS:
        return None
    values: dict[str, str | None] = {dest: given.get(option) for option, dest in _VALUE_OPTIONS.items()}
    values["log_level"] = given.get("--log-level", DEFAULT_LOG_LEVEL)
    return SimpleNamespace(command=None, self_test=False, **values)


def build_parser(modules: Sequence[str] | None = None) -> argparse.ArgumentParser:
    import argparse

    parser_class = _parser_class()
    parser = parser_class(
        prog="jawad",
        description=f"{APP_NAME}: an AI assistant that works in a browser you can watch. "
        "Without a command, the window opens.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="start headless, check the window, web view, JavaScript and keyring; print a JSON report",
    )
    parser.add_argument("--screenshot", metavar="FILE", help=argparse.SUPPRESS)  # test hook
    parser.add_argument("--startup-report", metavar="FILE", help=argparse.SUPPRESS)  # benchmark hook
    add_global_options(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    for name in COMMAND_MODULES if modules is None else modules:
        module = importlib.import_module(name)
        _add_command_options(module.register(commands))
    return parser


def _run_handler(args: argparse.Namespace) -> int:
    import asyncio
    import inspect

    from jawad_desktop.core.context import AppContext

    ctx = AppContext.open(args.profile)
    handler = args.handler
    result = handler(args, ctx)
    if inspect.isawaitable(result):
        result = asyncio.run(result)  # type: ignore[arg-type]
    return int(result or 0)


def _activate_voice_pack(paths: AppPaths) -> None:
    """The packaged app: load the offline speech engine from its voice pack, if installed,
    before anything imports it (a few milliseconds; a source install has nothing to do)."""
    if not getattr(sys, "frozen", False):
        return
    from jawad_desktop.core.voice.pack import VoicePack

    try:
        VoicePack.for_app(paths).activate()
    except Exception:  # offline speech must never keep the app from starting
        log.exception("the voice pack could not be activated")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jawad`` and ``python -m jawad_desktop``."""
    args: Any = _window_start(sys.argv[1:] if argv is None else argv)
    if args is None:
        args = build_parser(_wanted_modules(argv)).parse_args(argv)

    from jawad_desktop.core.logging_setup import setup_logging
    from jawad_desktop.core.store.paths import AppPaths

    paths = AppPaths.for_profile(args.profile)
    gui = args.command is None and not args.self_test
    # The window opens its log file once its frame is on screen (start-up time).
    log_file = setup_logging(paths.logs, args.log_level, open_file=not gui)
    _activate_voice_pack(paths)
    try:
        if args.self_test or args.command is None:
            from jawad_desktop.ui.app.application import end_process

            if args.self_test:
                from jawad_desktop.ui.app.self_test import run_self_test

                end_process(run_self_test(args.profile))
            from jawad_desktop.ui.app.application import run_gui

            end_process(run_gui(args.profile, screenshot=args.screenshot, startup_report=args.startup_report))
        return _run_handler(args)
    except JawadError as exc:
        from jawad_desktop.cli.remedies import error_text
        from jawad_desktop.cli.terminal import printable

        print(f"jawad: {printable(error_text(exc))}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("jawad: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        log.exception("unexpected failure")
        where = f" Details are in {log_file}." if log_file else ""
        print(f"jawad: something went wrong: {type(exc).__name__}: {exc}.{where}", file=sys.stderr)
        return EXIT_FAILURE
