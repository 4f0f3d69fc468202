"""JSON parsing that fails with ValueError for every bad input, including absurd nesting."""

from __future__ import annotations

import json


def loads(text: str | bytes) -> object:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
