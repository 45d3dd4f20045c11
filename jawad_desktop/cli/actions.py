"""One way to declare a command made of actions (``jawad memory list``, ``jawad models ollama pull``):
each ``Action`` names an action, its help, its arguments (``arg``, or a function that adds a group
of them to the action's parser) and, when it has them, its own actions one level down;
``add_command`` builds the command's parser from that table, with the action's name in
``args.<dest>`` and the command's handler for every action (it dispatches on the name).
``remove_numbered`` is the ``remove`` action of the commands whose items have numbers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from jawad_desktop.core.errors import JawadError

# An argument as ``add_argument`` takes it (its flags or name, and its options), or a function that
# adds some to a parser (a group several commands share, such as the provider selection).
Argument = tuple[tuple[str, ...], dict[str, Any]] | Callable[[argparse.ArgumentParser], None]


def arg(*flags: str, **options: Any) -> Argument:
    """An argument of an action: ``arg("--json", action="store_true", help="print JSON")``."""
    return flags, options


# The two ways the commands word their --json option.
JSON_AS_TEXT = arg("--json", action="store_true", help="print JSON instead of text")
JSON = arg("--json", action="store_true", help="print JSON")


@dataclass(frozen=True)
class Action:
    """An action of a command: its name, its help line, its arguments in the order ``--help``
    lists them, and its own actions (``dest`` receives their name), if it has some."""

    name: str
    help: str
    arguments: Sequence[Argument] = ()
    actions: Sequence[Action] = ()
    dest: str = ""


def add_command(subparsers: Any, name: str, handler: Callable[..., Any], *, help: str, description: str,
                dest: str, actions: Sequence[Action]) -> argparse.ArgumentParser:
    """The parser of command ``name`` (``register``'s answer): a required ``ACTION`` whose name
    lands in ``args.<dest>``, one subparser per action of ``actions``; ``handler`` runs them all."""
    from jawad_desktop.cli import add_actions

    parser, subs = add_actions(subparsers, name, help=help, description=description, dest=dest, handler=handler)
    _add(subs, actions)
    return parser


def _add(subs: Any, actions: Sequence[Action]) -> None:
    for action in actions:
        parser = subs.add_parser(action.name, help=action.help)
        for argument in action.arguments:
            if callable(argument):
                argument(parser)
            else:
                flags, options = argument
                parser.add_argument(*flags, **options)
        if action.actions:
            nested = parser.add_subparsers(dest=action.dest, metavar="ACTION", parser_class=type(parser))
            nested.required = True
            _add(nested, action.actions)


def remove_numbered(numbers: Sequence[int], remove: Callable[[int], bool], *, done: str, item: str,
                    missing: str, command: str) -> int:
    """Remove the items ``numbers`` (``remove`` says whether one was there), say so with ``done``
    ("Forgot 2 facts."); a number that was not there is an error naming the ``missing`` ("There is
    no task numbered 7"), the others are removed all the same."""
    absent = [n for n in numbers if not remove(n)]
    if absent:
        raise JawadError(f"There is no {missing} numbered {', '.join(map(str, absent))}.",
                         suggestions=[f"List them with `jawad {command} list`."])
    print(f"{done} {len(numbers)} {item}{'s' if len(numbers) != 1 else ''}.", file=sys.stderr)
    return 0
