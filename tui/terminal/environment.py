"""Facts about where the program runs: over SSH, with a graphical display."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from tui.core.signals import ignore_hangup
from tui.core.spec.keys import login_command
from tui.core.system.facts import in_ssh_session
from tui.core.text.i18n import _


def in_ssh(env: Mapping[str, str] | None = None) -> bool:
    return in_ssh_session(env)


def has_display(env: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if platform == "darwin" or platform.startswith("win"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def supports_hyperlinks(env: Mapping[str, str] | None = None) -> bool:
    """Whether to send OSC 8 hyperlinks. Terminals that do not know OSC 8 ignore it, except the
    Linux console and `TERM=dumb`; `FORCE_HYPERLINK=0` (or `1`) decides, as other tools honour it."""
    env = os.environ if env is None else env
    forced = env.get("FORCE_HYPERLINK", "").strip()
    if forced:
        return forced != "0"
    return env.get("TERM", "") not in ("dumb", "linux", "")


def lose_terminal() -> None:
    """The terminal went away (SIGHUP, or EIO on it): ignore further SIGHUPs and point the
    standard streams at /dev/null, so nothing is ever written to (or read from) a dead terminal."""
    ignore_hangup()
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for fd in (0, 1, 2):
        try:
            os.dup2(devnull, fd)
        except OSError:
            pass
    os.close(devnull)


def ssh_note(storage_name: str) -> str:
    """The line that says a sign-in over SSH survives a dropped connection, with the `login` that
    resumes it: the one that writes its slot (walked: a named account's said the region's)."""
    return _("Connection lost? It goes on: `{command}` resumes it.").format(command=login_command(storage_name))
