"""Run the benchmarks, print a table, write JSON. See ``benchmarks/__init__.py``."""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import platform
import sys
import time
import traceback
from pathlib import Path

from benchmarks import Figure

HERE = Path(__file__).resolve().parent


def _modules() -> list[str]:
    return sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("bench_"))


# A name that runs several benchmarks: what one issue asks to see together.
GROUPS = {
    # Issue 27's figures, on real pages nobody here wrote only: main content on web-snippets beside plain
    # trafilatura and plain Readability, the worst pages, products only where there is one, the price on
    # products-fathom, read time and tokens per read; the article corpus as a regression set.
    "reading": ["web_snippets", "products_fathom", "articles"],
}


def _print_table(results: dict[str, list[dict[str, object]]]) -> None:
    width = max((len(f["name"]) for figs in results.values() for f in figs), default=10)  # type: ignore[arg-type]
    print(f"{'benchmark':<{width}}  {'value':>12}  {'unit':<6}  {'goal':<22}  ok")
    for figs in results.values():
        for f in figs:
            ok = {True: "yes", False: "NO", None: "-"}[f["ok"]]  # type: ignore[index]
            value = f["value"]
            shown = f"{value:12.3f}" if isinstance(value, float) else f"{value!s:>12}"
            print(f"{f['name']:<{width}}  {shown}  {f['unit']!s:<6}  {f['goal']!s:<22}  {ok}  {f['note']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"which to run (default all): {', '.join(_modules())}; "
                        + "; ".join(f"{group} runs {', '.join(parts)}" for group, parts in GROUPS.items()))
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, for a smoke run")
    parser.add_argument("--out", type=Path, default=HERE / "results", help="folder for the JSON results")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of the table")
    args = parser.parse_args(argv)
    names = [part for name in args.names or _modules() for part in GROUPS.get(name, [name])]
    unknown = [n for n in names if n not in _modules()]
    if unknown:
        parser.error(f"no such benchmark: {', '.join(unknown)}")
    results: dict[str, list[dict[str, object]]] = {}
    failed = False
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        try:
            module = importlib.import_module(f"benchmarks.bench_{name}")
            figures: list[Figure] = module.run(args.quick)
        except Exception:
            traceback.print_exc()
            failed = True
            figures = [Figure(name=f"{name}: failed to run", value=float("nan"), unit="", ok=False)]
        results[name] = [f.as_dict() for f in figures]
    report = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "results": results,
    }
    text = json.dumps(report, indent=2)
    if args.json:
        print(text)
    else:
        _print_table(results)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(text)
    (args.out / "latest.json").write_text(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
