"""JSON parsing that fails with ValueError for every bad input, including absurd nesting."""

from __future__ import annotations

import json

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from typing import TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """A JSON integer: Python's bool is an int, JSON's true is not."""
    return isinstance(value, int) and not isinstance(value, bool)


def _no_constant(name: str) -> object:
    raise ValueError(f"invalid number {name}")


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"number out of range: {text[:20]}")
    return value


def loads(text: str | bytes) -> object:
    """Strict JSON: NaN, Infinity and numbers beyond a double (1e400) are invalid values."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
