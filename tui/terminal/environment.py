"""Facts about where the program runs: over SSH, with a graphical display."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def in_ssh(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return bool(env.get("SSH_CONNECTION") or env.get("SSH_TTY") or env.get("SSH_CLIENT"))


def has_display(env: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if platform == "darwin" or platform.startswith("win"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
