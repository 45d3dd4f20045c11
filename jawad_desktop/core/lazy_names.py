"""A package's names imported on their first use: the package's ``__init__`` lists which module
holds each name and imports none of them, so importing the package costs nothing until a name is
asked for (the idle window imports ``core.voice`` or ``core.tools`` without their engines)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def names_on_first_use(package: str, sources: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``sources`` maps each name to the submodule that
    defines it; a name is imported the first time it is asked for and kept in the package, so
    later lookups do not come here again."""
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> Any:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{source}"), name)
        namespace[name] = value
        return value

    return __getattr__
