"""A table's columns laid out for the pane it is in: every header shown whole, a long value (a
name, a URL) cut with an ellipsis down to a least width, the columns that matter least first, and where even that does not fit, the
columns that matter least left out (what they say is shown elsewhere on the screen). A pure rule:
the widget measures the pane and draws what this returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len as cells  # as the table measures what it draws

PADDING = 2  # a cell's padding, one each side (DataTable's default)


@dataclass(frozen=True)
class Column:
    label: str
    least: int | None = None  # cells a value may be cut to (never below its header); None: never cut
    keep: int = 0  # where room runs out, the shown column with the lowest `keep` is left out first


def widths(columns: Sequence[Column], rows: Sequence[Sequence[str]], room: int) -> list[int | None]:
    """Each column's width in cells, or None where it is left out, so that the shown columns and
    their padding fit in `room` cells. The first column to be kept (highest `keep`) is always shown;
    alone and still too wide, it is given its least width and the table scrolls sideways."""
    natural = [max([cells(c.label), *(cells(row[i]) for row in rows)]) for i, c in enumerate(columns)]
    floor = [
        n if c.least is None else min(n, max(cells(c.label), c.least)) for n, c in zip(natural, columns, strict=True)
    ]
    shown = sorted(range(len(columns)), key=lambda i: columns[i].keep, reverse=True)
    while shown:
        budget = room - PADDING * len(shown)
        if sum(floor[i] for i in shown) <= budget or len(shown) == 1:
            fitted = _shrunk(
                [natural[i] for i in shown], [floor[i] for i in shown], [columns[i].keep for i in shown], budget
            )
            placed: list[int | None] = [None] * len(columns)
            for i, width in zip(shown, fitted, strict=True):
                placed[i] = width
            return placed
        shown.pop()  # the one that matters least
    return []


def _shrunk(natural: list[int], floor: list[int], keep: list[int], budget: int) -> list[int]:
    """Natural widths where they fit; else the columns that matter least are cut first, each as far
    as needed and never below its floor."""
    fitted = list(natural)
    over = sum(fitted) - budget
    for i in sorted(range(len(fitted)), key=lambda i: keep[i]):
        if over <= 0:
            break
        cut = min(over, fitted[i] - floor[i])
        fitted[i] -= cut
        over -= cut
    return fitted
