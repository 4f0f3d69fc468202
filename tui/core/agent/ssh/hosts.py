"""The hosts a person reaches with ssh, for completing `assistant-auth ssh <TAB>` as
bash-completion completes `ssh`: the `Host` names of `~/.ssh/config` (and the files it includes),
without patterns, and the names of `~/.ssh/known_hosts` that are not hashed. Parsing is pure;
`hosts` reads the files (regular ones only, bounded, never waiting)."""

from __future__ import annotations

import glob
import os

from tui.core.files.regular import read_regular_stat

MOST = 1 << 20  # bytes read of one file
PATTERN = set("*?!")


def config_hosts(text: str) -> tuple[list[str], list[str]]:
    """(the `Host` names without patterns, the `Include` arguments) of an ssh_config text."""
    hosts: list[str] = []
    includes: list[str] = []
    for raw in text.splitlines():
        words = raw.strip().replace("=", " ", 1).split()
        if not words or words[0].startswith("#"):
            continue
        keyword = words[0].lower()
        if keyword == "host":
            hosts += [word for word in words[1:] if not PATTERN & set(word)]
        elif keyword == "include":
            includes += words[1:]
    return hosts, includes


def known_hosts(text: str) -> list[str]:
    """The host names of a known_hosts text: `[host]:port` as `host`, hashed lines (`|1|…`) and
    markers skipped."""
    found: list[str] = []
    for raw in text.splitlines():
        words = raw.split()
        if not words or words[0].startswith(("#", "|")):
            continue
        names = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
        for name in names.split(","):
            if name.startswith("["):
                name = name[1:].split("]", 1)[0]
            if name and not PATTERN & set(name) and not name.startswith("|"):
                found.append(name)
    return found


def _read(path: str) -> str:
    """At most `MOST` bytes of a regular file, through the one reading policy: a FIFO, a device
    or a directory named by an `Include` (or at `known_hosts`) is never opened in a way that waits,
    and reads as empty; completion runs inside the person's shell on every TAB."""
    try:
        raw, _info = read_regular_stat(path, MOST, head=True)
    except OSError:
        return ""
    return raw.decode("utf-8", "replace")


def hosts(home: str | None = None) -> list[str]:
    """Every host name to offer, sorted, once each."""
    ssh = os.path.join(home or os.path.expanduser("~"), ".ssh")
    found: set[str] = set()
    pending: list[str] = [os.path.join(ssh, "config")]
    seen: set[str] = set()
    while pending and len(seen) < 64:  # Include may name globs and nest: bounded
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        names, includes = config_hosts(_read(path))
        found.update(names)
        for include in includes:
            where = os.path.expanduser(include) if include.startswith("~") else os.path.join(ssh, include)
            pending += sorted(glob.glob(where))[:64]
    for name in ("known_hosts", "known_hosts2"):
        found.update(known_hosts(_read(os.path.join(ssh, name))))
    return sorted(name for name in found if name.isprintable())
