"""Paths as a person reads them (the home directory as `~`). Untrusted text itself is made safe
by `tui.core.text.untrusted` (one printable line), which every face uses."""

from __future__ import annotations

import os


def _home() -> str | None:
    home = os.path.expanduser("~").rstrip("/")
    return home if home and home != "~" else None


def short_path(path: object) -> str:
    """A path as a person reads it: the home directory as `~` (`~/.assistant-code/config.toml`)."""
    text, home = str(path), _home()
    if home and (text == home or text.startswith(home + "/")):
        return "~" + text[len(home) :]
    return text


def tilde(text: str) -> str:
    """Every path inside a sentence (a doctor finding) as `short_path` shows one."""
    home = _home()
    return text.replace(home + "/", "~/") if home else text
