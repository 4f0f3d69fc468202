"""Make untrusted text (from a server or a file) safe to show in a terminal.

Every string that did not come from this program goes through `clean` before it is displayed,
in the TUI (wrapped by `tui.app.widgets.safe.plain`, which also disables markup) and on the CLI.
Control characters (C0 except tab/newline, DEL, C1 such as CSI/OSC introducers) and bidi
overrides are replaced by a visible `�`-style marker so an ESC sequence can never reach the
terminal and right-to-left tricks cannot reorder what a person reads.
"""

from __future__ import annotations

import os
import re

_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)
MARK = "\ufffd"


def clean(text: object, *, keep_newlines: bool = True) -> str:
    value = "" if text is None else str(text)
    value = _CONTROL.sub(MARK, value)
    if not keep_newlines:
        value = value.replace("\n", " ").replace("\t", " ")
    return value


def one_line(text: object, width: int | None = None) -> str:
    value = clean(text, keep_newlines=False)
    if width is not None and len(value) > width:
        value = value[: max(width - 1, 0)] + "…"
    return value


def _home() -> str | None:
    home = os.path.expanduser("~").rstrip("/")
    return home if home and home != "~" else None


def short_path(path: object) -> str:
    """A path as a person reads it: the home directory as `~` (`~/.assistant-code/config.toml`)."""
    text, home = str(path), _home()
    if home and (text == home or text.startswith(home + "/")):
        return "~" + text[len(home):]
    return text


def tilde(text: str) -> str:
    """Every path inside a sentence (a doctor finding) as `short_path` shows one."""
    home = _home()
    return text.replace(home + "/", "~/") if home else text
