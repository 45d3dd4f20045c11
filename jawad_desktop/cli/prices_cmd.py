"""``jawad prices``: the price table the cost of each answer is estimated with.

``list`` prints the prices in use (the built-in ones and the user's, which win); ``set`` and
``unset`` change the user's own entries in ``prices.json`` in the profile's config folder (the
file can also be edited by hand: see ``core.llm.pricing``). Prices are USD per million tokens.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jawad_desktop.cli.actions import JSON, Action, add_command, arg
from jawad_desktop.core.context import AppContext
from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.llm.pricing import Price, PriceTable


def register(subparsers: Any) -> argparse.ArgumentParser:
    return add_command(
        subparsers, "prices", run, dest="prices_action",
        help="the model prices the cost of answers is estimated with",
        description="Model prices in USD per million tokens: the built-in table, and your own entries "
                    "(prices.json in the config folder), which win.",
        actions=[
            Action("list", "the prices in use (yours marked *)", [JSON]),
            Action("set", "set your price for a model (or a pattern such as 'acme-*')", [
                arg("model", help="a model name as the provider lists it, or a pattern with * and ?"),
                arg("--input", type=float, required=True, metavar="USD", help="per million input tokens"),
                arg("--output", type=float, required=True, metavar="USD", help="per million output tokens"),
                arg("--cached-input", type=float, metavar="USD",
                    help="per million cached input tokens (default: the input price)")]),
            Action("unset", "remove your price for a model (the built-in one applies again)", [arg("model")]),
        ])


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def _list(table: PriceTable, args: argparse.Namespace) -> int:
    mine = table.overrides
    rows = {**{k: (v, False) for k, v in table.defaults.items()}, **{k: (v, True) for k, v in mine.items()}}
    if args.json:
        print(json.dumps({k: {**v.as_json(), "yours": yours} for k, (v, yours) in sorted(rows.items())}, indent=2))
        return 0
    print(f"{'MODEL':<28} {'INPUT':>8} {'CACHED':>8} {'OUTPUT':>8}   (USD per million tokens)")
    for key, (price, yours) in sorted(rows.items()):
        print(f"{key + (' *' if yours else ''):<28} {_money(price.input):>8} {_money(price.cached_input):>8} "
              f"{_money(price.output):>8}")
    print(f"\nYour prices: {table.path} (* above). Local models cost nothing.", file=sys.stderr)
    return 0


def _set(table: PriceTable, args: argparse.Namespace) -> int:
    values = (args.input, args.output, args.cached_input)
    if any(v is not None and not v >= 0 for v in values):
        raise JawadError("A price cannot be negative.", suggestions=["Give dollars per million tokens, 0 or more."])
    _write(table, args.model, Price(input=args.input, output=args.output, cached_input=args.cached_input))
    print(f"Saved your price for {args.model} in {table.path}.", file=sys.stderr)
    return 0


def _unset(table: PriceTable, args: argparse.Namespace) -> int:
    if args.model.strip().lower() not in table.overrides:
        raise JawadError(f"You have no price of your own for {args.model!r}.",
                         suggestions=["Run 'jawad prices list' to see them (yours are marked *)."])
    _write(table, args.model, None)
    print(f"Removed your price for {args.model}.", file=sys.stderr)
    return 0


def _write(table: PriceTable, model: str, price: Price | None) -> None:
    try:
        table.set_price(model, price)
    except OSError as exc:
        raise JawadError(f"The price table {table.path} could not be written: {exc.strerror or exc}.",
                         suggestions=["Check that you may write to the config folder."]) from exc


_ACTIONS = {"list": _list, "set": _set, "unset": _unset}


def run(args: argparse.Namespace, ctx: AppContext) -> int:
    table = PriceTable.in_folder(ctx.paths.config, bus=ctx.bus)
    unsubscribe = ctx.bus.subscribe(_print_notice)
    try:
        return _ACTIONS[args.prices_action](table, args)
    finally:
        unsubscribe()


def _print_notice(event: Any) -> None:
    from jawad_desktop.core.events import Notice

    if isinstance(event, Notice):  # a broken prices.json, moved aside
        print(f"jawad: {event.text}", file=sys.stderr)
