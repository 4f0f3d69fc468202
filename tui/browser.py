"""Opening the verification page: only where a graphical browser can really appear.

Never over SSH (the browser would open on the remote machine), never with --no-browser, and
never a console browser that would take over the terminal the app is drawing in.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping

from tui.environment import has_display, in_ssh


def browser_command(url: str, env: Mapping[str, str] | None = None, platform: str | None = None) -> list[str] | None:
    """The command that opens `url`, or None when no graphical browser can be used."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if in_ssh(env):
        return None
    custom = env.get("BROWSER", "").strip()
    if custom:
        first = custom.split(os.pathsep)[0]
        parts = shlex.split(first)
        if not parts:
            return None
        if any("%s" in part for part in parts):
            return [part.replace("%s", url) for part in parts]
        return parts + [url]
    if not has_display(env, platform):
        return None
    if platform == "darwin":
        return ["open", url]
    if platform.startswith("win"):
        return ["cmd", "/c", "start", "", url]
    opener = shutil.which("xdg-open")
    return [opener, url] if opener else None


def should_auto_open(no_browser: bool = False, env: Mapping[str, str] | None = None) -> bool:
    """Open without being asked only when local, with a display, and a browser to run."""
    env = os.environ if env is None else env
    return (
        not no_browser
        and not in_ssh(env)
        and has_display(env)
        and browser_command("https://x", env) is not None
    )


def open_url(url: str, env: Mapping[str, str] | None = None) -> str:
    """Launch the browser detached from the terminal; returns the sentence to show."""
    command = browser_command(url, env)
    if command is None:
        reason = "over SSH" if in_ssh(env) else "without a graphical display"
        return f"Not opening a browser {reason}: open the address on any device."
    try:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        return f"Could not start the browser ({exc.strerror or exc}): open the address by hand."
    return "Opened the verification page in your browser."
