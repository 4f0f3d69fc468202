"""Opening the verification page: only safe addresses, only where a graphical browser can appear.

One policy (`address_refusal`) decides whether an address from the server may be opened, drawn
as a QR code or linked: an absolute `https://` address (or `http://` on loopback) that parses
cleanly, never one beginning with `-` or holding whitespace, control characters or userinfo.
Never over SSH (the browser would open on the remote machine), never with --no-browser, and
never a console browser that would take over the terminal the app is drawing in. `BROWSER` is
honoured as Python's `webbrowser` documents it: a `:`-separated list tried in order, `%s` replaced
by the address; an entry that runs a shell (`sh -c '… %s'`) gets the address shell-quoted.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from urllib.parse import urlsplit

from tui.core.http import is_loopback_host
from tui.core.text.i18n import _
from tui.terminal.environment import has_display, in_ssh

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "yash"})
_SHELL_UNSAFE = frozenset("'\"$`\\")  # never inside an address handed to a shell, quoted or not


def address_refusal(url: object) -> str | None:
    """Why `url` must not be opened, drawn as a QR code or linked; None when it may."""
    if not isinstance(url, str) or not url:
        return _("the server sent no address")
    if url.startswith("-"):
        return _("it begins with '-'")
    if any(ch.isspace() or not ch.isprintable() or ord(ch) > 0x7E for ch in url):
        return _("it holds spaces, control or non-ASCII characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return _("it does not parse as an address")
    scheme, host = parts.scheme.lower(), parts.hostname
    if not host:
        return _("it names no host")
    if "@" in parts.netloc:
        return _("it carries a user name or password")
    if scheme == "https" or (scheme == "http" and is_loopback_host(host)):
        return None
    return _("only https:// addresses are opened (http:// only on this machine)")


def _runs_shell(parts: list[str]) -> bool:
    return os.path.basename(parts[0]) in SHELLS and any(
        p.startswith("-") and not p.startswith("--") and "c" in p[1:] for p in parts[1:]
    )


def _only_shell_entries_refused(url: str, env: Mapping[str, str] | None) -> bool:
    """`BROWSER` has entries, and those that run a shell refused `url` for its characters."""
    custom = (os.environ if env is None else env).get("BROWSER", "").strip()
    entries = [entry for entry in custom.split(os.pathsep) if entry.strip()]
    shells = []
    for entry in entries:
        try:
            parts = shlex.split(entry)
        except ValueError:
            continue
        if parts and _runs_shell(parts):
            shells.append(parts)
    return bool(shells) and any(ch in _SHELL_UNSAFE for ch in url)


def _entry_command(entry: str, url: str) -> list[str] | None:
    """One `BROWSER` entry as an argument list for `url`, or None when it cannot be used safely."""
    try:
        parts = shlex.split(entry)
    except ValueError:
        return None
    if not parts:
        return None
    if _runs_shell(parts):
        if any(ch in _SHELL_UNSAFE for ch in url):
            return None
        quoted = shlex.quote(url)
        for text in ("'%s'", '"%s"'):  # the user's own quotes around %s: ours replace them
            parts = [part.replace(text, "%s") for part in parts]
        if not any("%s" in part for part in parts):
            return parts + [url]  # no placeholder: the address is a positional parameter
        return [part.replace("%s", quoted) for part in parts]
    if any("%s" in part for part in parts):
        return [part.replace("%s", url) for part in parts]
    return parts + [url]


def browser_commands(url: str, env: Mapping[str, str] | None = None, platform: str | None = None) -> list[list[str]]:
    """The commands to try, in order, to open `url`; empty when none may or can be used."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if in_ssh(env) or address_refusal(url) is not None:
        return []
    custom = env.get("BROWSER", "").strip()
    if custom:
        found = (_entry_command(entry, url) for entry in custom.split(os.pathsep) if entry.strip())
        return [command for command in found if command is not None]
    if not has_display(env, platform):
        return []
    if platform == "darwin":
        return [["open", url]]
    if platform.startswith("win"):
        return [["cmd", "/c", "start", "", url]]
    opener = shutil.which("xdg-open")
    return [[opener, url]] if opener else []


def should_auto_open(no_browser: bool = False, env: Mapping[str, str] | None = None) -> bool:
    """Open without being asked only when local, with a display, and a browser to run."""
    env = os.environ if env is None else env
    return (
        not no_browser and not in_ssh(env) and has_display(env) and bool(browser_commands("https://example.com/", env))
    )


def open_url(url: str, env: Mapping[str, str] | None = None) -> str:
    """Launch the browser detached from the terminal; returns the sentence to show."""
    refusal = address_refusal(url)
    if refusal is not None:
        return _("Not opening the address: {reason}. Type it by hand if you trust it.").format(reason=refusal)
    commands = browser_commands(url, env)
    if not commands:
        if in_ssh(env):
            return _("Not opening a browser over SSH: open the address on any device.")
        if _only_shell_entries_refused(url, env):
            return _(
                "Not opening the address through a shell in $BROWSER: it holds characters a shell reads "
                "($, quotes, backquote or backslash). Type it by hand if you trust it."
            )
        return _("Not opening a browser without a graphical display: open the address on any device.")
    problem = ""
    for command in commands:  # as webbrowser does: the next entry when one cannot start
        try:
            subprocess.Popen(  # noqa: S603 - an argv list, no shell; the address passed the policy above
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            problem = exc.strerror or str(exc)
            continue
        return _("Opened the verification page in your browser.")
    return _("Could not start the browser ({problem}): open the address by hand.").format(problem=problem)
