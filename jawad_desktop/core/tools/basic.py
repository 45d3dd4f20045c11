"""Tools that need no browser: the time and a safe calculator.

``calculate`` evaluates arithmetic by walking Python's AST with a whitelist of number
literals, operators and math functions: no ``eval``, no names, no attributes, and limits on
exponent size so "9**9**9" cannot hang the app.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import operator
from collections.abc import Callable
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field

from jawad_desktop.core.tools.registry import ToolError, ToolRegistry

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "sqrt": math.sqrt,
    "log": math.log,
    "log10": math.log10,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "floor": math.floor,
    "ceil": math.ceil,
}
_CONSTANTS = {"pi": math.pi, "e": math.e}
_MAX_EXPONENT = 10_000
_MAX_DIGITS = 4_000


class CalculationError(ValueError):
    """The expression is not plain arithmetic or cannot be computed."""


def safe_eval(expression: str) -> int | float:
    """The value of an arithmetic expression (``+ - * / // % **``, parentheses, a few math
    functions, ``pi`` and ``e``), or ``CalculationError`` saying what is not allowed."""
    text = expression.strip().replace("^", "**").replace("×", "*").replace("÷", "/")
    text = text.replace(",", "") if "(" not in text else text  # "1,299.99 * 2"
    if not text:
        raise CalculationError("the expression is empty")
    if len(text) > 500:
        raise CalculationError("the expression is longer than 500 characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise CalculationError(f"'{expression}' is not a valid arithmetic expression") from exc
    result = _evaluate(tree.body)
    if isinstance(result, bool) or not isinstance(result, int | float):
        raise CalculationError("the expression does not give a number")
    return result


def _evaluate(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and (
            abs(right) > _MAX_EXPONENT or (abs(left) > 10**100 and right > 1)
        ):
            raise CalculationError("the power is too large to compute")
        if (
            isinstance(node.op, ast.Mult)
            and isinstance(left, int)
            and isinstance(right, int)
            and len(str(abs(left))) + len(str(abs(right))) > _MAX_DIGITS
        ):
            raise CalculationError("the result would be too large")
        try:
            value = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise CalculationError("division by zero") from None
        except (OverflowError, ValueError) as exc:
            raise CalculationError(f"cannot compute it ({exc})") from None
        if isinstance(value, complex):
            raise CalculationError("the result is not a real number")
        return value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
        if node.keywords:
            raise CalculationError("functions take plain arguments only")
        args = [_evaluate(arg) for arg in node.args]
        try:
            return _FUNCTIONS[node.func.id](*args)
        except (TypeError, ValueError, OverflowError) as exc:
            raise CalculationError(f"{node.func.id}(): {exc}") from None
    allowed = ", ".join(sorted(_FUNCTIONS))
    raise CalculationError(
        f"only numbers, + - * / // % ** ^, parentheses, pi, e and these functions are allowed: {allowed}"
    )


def _format_number(value: int | float) -> str:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return f"{value:.12g}"
    return str(value)


def register_basic_tools(registry: ToolRegistry) -> ToolRegistry:
    """Add ``get_time`` and ``calculate`` to ``registry`` and return it."""

    @registry.tool(aliases=("time", "current_time", "get_current_time", "now"))
    def get_time(
        timezone: Annotated[
            str, Field(description="An IANA time zone such as 'Europe/Paris'; empty for local time")
        ] = "",
    ) -> str:
        """Get the current date and time, in local time or in a given time zone."""
        if timezone.strip():
            try:
                zone: dt.tzinfo | None = ZoneInfo(timezone.strip())
            except (ZoneInfoNotFoundError, ValueError):
                raise ToolError(
                    f"'{timezone}' is not a known time zone; "
                    "use a name like 'America/New_York' or leave it empty"
                ) from None
        else:
            zone = None
        now = dt.datetime.now(zone).astimezone(zone) if zone else dt.datetime.now().astimezone()
        return now.strftime("%A %d %B %Y, %H:%M:%S %Z (UTC%z)")

    # async although instant: CPython 3.11 before 3.11.8 keeps the AST recursion depth
    # interpreter-wide, so ast.parse in a worker thread can corrupt it for the main thread.
    @registry.tool(aliases=("calc", "calculator", "math", "evaluate"))
    async def calculate(
        expression: Annotated[str, Field(description="Arithmetic such as '(19.99 * 3) - 5' or 'sqrt(2)'")],
    ) -> str:
        """Compute an arithmetic expression exactly, instead of guessing the result."""
        try:
            value = safe_eval(expression)
        except CalculationError as exc:
            raise ToolError(f"cannot calculate '{expression}': {exc}") from None
        return f"{expression.strip()} = {_format_number(value)}"

    return registry


def basic_registry() -> ToolRegistry:
    """A new registry holding the tools that need no browser."""
    return register_basic_tools(ToolRegistry())
