"""A QR code drawn with Unicode half blocks (two modules per character cell)."""

from __future__ import annotations

from textual.widgets import Static

from tui.app.widgets.safe import plain

QUIET = 2  # quiet-zone modules around the code


def qr_lines(data: str) -> list[str]:
    """Rows of half-block characters for `data`; dark modules are drawn as spaces on light."""
    import segno

    qr = segno.make(data, error="l", micro=False)
    matrix = [list(row) for row in qr.matrix]
    size = len(matrix)
    blank = [0] * (size + 2 * QUIET)
    grid = (
        [blank] * QUIET + [[0] * QUIET + [int(bool(v)) for v in row] + [0] * QUIET for row in matrix] + [blank] * QUIET
    )
    if len(grid) % 2:
        grid.append(blank)
    # light background, dark modules: "█" is light, " " is dark, half blocks mix the two
    chars = {(0, 0): "█", (1, 1): " ", (1, 0): "▄", (0, 1): "▀"}
    return [
        "".join(chars[(top, bottom)] for top, bottom in zip(grid[y], grid[y + 1], strict=True))
        for y in range(0, len(grid), 2)
    ]


def qr_size(data: str) -> tuple[int, int] | None:
    """(width, height) in cells, or None when `data` is too long for any QR code."""
    from segno import DataOverflowError

    try:
        lines = qr_lines(data)
    except DataOverflowError:
        return None
    return (len(lines[0]) if lines else 0, len(lines))


class QRCode(Static):
    """Shows the QR code of a URI; the caller checks that it fits (see `qr_size`)."""

    def __init__(self, data: str, **kwargs) -> None:
        super().__init__(plain("\n".join(qr_lines(data))), markup=False, **kwargs)
