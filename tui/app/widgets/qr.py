"""A QR code drawn with Unicode half blocks (two modules per character cell)."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widgets import Static

from tui.app.widgets.safe import plain
from tui.core.text.i18n import _

QUIET = 2  # quiet-zone modules around the code


def qr_lines(data: str) -> list[str]:
    """Rows of half-block characters for `data`; dark modules are drawn as spaces on light."""
    import segno  # lazy: heavy: segno

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
    from segno import DataOverflowError  # lazy: heavy: segno

    try:
        lines = qr_lines(data)
    except DataOverflowError:
        return None
    return (len(lines[0]) if lines else 0, len(lines))


QR_BESIDE = 44  # columns the code pane keeps beside the QR code
QR_ABOVE = 4  # rows for the header, footer and padding
QR_ALONE_BESIDE = 2  # columns of padding when the QR code is shown on a screen of its own
QR_ALONE_ABOVE = 1  # the caption below it (that screen has no header or footer)


def qr_placement(data: str, width: int, height: int) -> tuple[str, str]:
    """Where the QR code of `data` goes on a `width`×`height` terminal (pure): ("beside", ""),
    ("alone", "") when it fits only on a screen of its own, or ("none", why) with the size needed."""
    size = qr_size(data)
    if size is None:
        return "none", _("The address is too long for a QR code: use the address and code shown.")
    cells_w, cells_h = size
    alone_w, alone_h = cells_w + QR_ALONE_BESIDE, cells_h + QR_ALONE_ABOVE
    if alone_w > width or alone_h > height:
        return "none", _(
            "The QR code needs a terminal of at least {needed} (this one is {size}): use the address and code."
        ).format(needed=f"{alone_w}×{alone_h}", size=f"{width}×{height}")
    if cells_w + QR_BESIDE > width or cells_h + QR_ABOVE > height:
        return "alone", ""
    return "beside", ""


class QRCode(Static):
    """Shows the QR code of a URI; the caller checks that it fits (see `qr_size`)."""

    def __init__(self, data: str, **kwargs) -> None:
        super().__init__(plain("\n".join(qr_lines(data))), markup=False, **kwargs)


class QRPane(Vertical):
    """The column beside the code where its QR code appears when asked for (r), and goes again."""

    def toggle(self, data: str | None, refusal: str | None, width: int, height: int) -> tuple[str, str]:
        """Show or hide the QR code of `data` (the complete address; `refusal`: why the browser
        policy refuses it) on a `width`×`height` terminal: ("hidden" | "shown" | "alone", "") or
        ("none", why not), "alone" when it fits only on a screen of its own."""
        if self.display:
            self.display = False
            self.remove_children()
            return "hidden", ""
        if not data:
            return "none", _("No complete verification address to encode: use the address and code shown.")
        if refusal is not None:
            return "none", _("No QR code for this address: {reason}.").format(reason=refusal)
        place, why = qr_placement(data, width, height)
        if place != "beside":
            return place, why
        self.mount(QRCode(data, id="qr"))
        self.display = True
        return "shown", ""
