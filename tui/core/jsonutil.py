"""JSON parsing that fails with ValueError for every bad input, including absurd nesting."""

from __future__ import annotations

import json


def is_int(value: object) -> bool:
    """A JSON integer: Python's bool is an int, JSON's true is not."""
    return isinstance(value, int) and not isinstance(value, bool)


def loads(text: str | bytes) -> object:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
