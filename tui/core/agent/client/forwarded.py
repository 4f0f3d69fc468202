"""On a server: a stable per-user place that leads to the newest live forwarded connection, as
tmux users keep `~/.ssh/ssh_auth_sock` for ssh-agent. `assistant-auth ssh` registers each
connection's forwarded socket here (a link `<id>.sock`, and `latest.sock` to the newest) and
removes it when the connection ends (`registration`, the shell the server runs). A shell whose
`ASSISTANT_AUTH_SOCK` names a connection that has ended (yesterday's tmux session) gets its
tokens through the newest live one (`newest_live`), said in one line.

    ~/.assistant-code/forwarded/latest.sock     the newest connection (set ASSISTANT_AUTH_SOCK here in tmux)
    ~/.assistant-code/forwarded/<id>.sock       each live connection

Only links of ours in a private directory of ours, leading to sockets of ours, are followed."""

from __future__ import annotations

import os
import stat

from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.wire import naming
from tui.core.agent.wire.naming import FORWARDED_DIR
from tui.core.agent.wire.protocol import Request
from tui.core.files.regular import read_regular
from tui.core.spec import paths
from tui.core.system.process import this_program

DIRECTORY, LATEST = FORWARDED_DIR, naming.LATEST
LOOK = 3.0  # seconds for each connection's answer while looking for a live one


def directory() -> str:
    return os.path.join(paths.config_dir_str(), DIRECTORY)


def stable_path() -> str:
    """The path a tmux configuration or `~/.profile` on the server sets ASSISTANT_AUTH_SOCK to."""
    return os.path.join(directory(), LATEST)


def candidates(exclude: str) -> list[str]:
    """The sockets the registered links lead to, newest link first, without `exclude` (the one
    that did not answer) or anything not ours."""
    where = directory()
    try:
        info = os.lstat(where)
        entries = list(os.scandir(where))
    except OSError:
        return []
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        return []
    dead = {exclude, os.path.realpath(exclude)}
    found: list[tuple[float, str]] = []
    for entry in entries:
        if not entry.name.endswith(".sock"):
            continue
        try:
            link = os.lstat(entry.path)
            target = os.readlink(entry.path)
            sock = os.lstat(target)
        except OSError:
            continue
        if not stat.S_ISLNK(link.st_mode) or link.st_uid != os.geteuid() or not os.path.isabs(target):
            continue  # registrations are links of ours to absolute paths: nothing else is followed
        if not stat.S_ISSOCK(sock.st_mode) or sock.st_uid != os.geteuid() or target in dead or entry.path in dead:
            continue
        found.append((link.st_mtime, target))
    ordered: list[str] = []
    for _mtime, target in sorted(found, reverse=True):
        if target not in ordered:
            ordered.append(target)
    return ordered


def newest_live(exclude: str) -> str | None:
    """The newest registered connection whose agent answers, other than `exclude`; None when none."""
    for target in candidates(exclude):
        try:
            if ask(Request("ping"), target, timeout=LOOK, stall=LOOK).get("ok") is True:
                return target
        except AgentUnavailable:
            continue
    return None


def registration(remote: str, ident: str) -> tuple[str, str]:
    """(what the server's shell runs first, what it runs at the end) to register the forwarded
    socket `remote` as connection `ident` and, at the end, remove it and point `latest.sock` at
    the newest one left. POSIX sh; every failure is quiet (a read-only home loses only this)."""
    import shlex  # lazy: `ssh` alone writes shell; a token's fall-over reads links (make bench, figure 6)

    sock = shlex.quote(remote)
    link = f'"$aa_d"/{shlex.quote(ident)}.sock'
    tmp = f'"$aa_d"/.latest-{shlex.quote(ident)}'
    start = (
        f'aa_d="${{ASSISTANT_CODE_HOME:-$HOME/.assistant-code}}/{DIRECTORY}"; '
        '(umask 077; mkdir -p "$aa_d") 2>/dev/null; '
        f"ln -sf {sock} {link} 2>/dev/null; "
        f'ln -sf {sock} {tmp} 2>/dev/null && mv -f {tmp} "$aa_d"/{LATEST} 2>/dev/null; '
    )
    end = (
        f"rm -f {link}; "
        f'if [ "$(readlink "$aa_d"/{LATEST} 2>/dev/null)" = {sock} ]; then '
        f"aa_n=$(ls -t \"$aa_d\"/*.sock 2>/dev/null | grep -v '/{LATEST}$' | head -n 1); "
        f'if [ -n "$aa_n" ]; then ln -sf "$(readlink "$aa_n")" {tmp} && mv -f {tmp} "$aa_d"/{LATEST}; '
        f'else rm -f "$aa_d"/{LATEST}; fi; fi 2>/dev/null'
    )
    return start, end


# -- a relay running here, for `status` ---------------------------------------------------------------

RELAY = "relay-{slot}.pid"


def relay_started(storage_name: str) -> str | None:
    """Note that a relay runs here for `storage_name` (its pid, in the registration directory);
    the path to remove when it ends, or None when it cannot be noted (said nowhere: only `status`
    reads it)."""
    where = directory()
    path = os.path.join(where, RELAY.format(slot=storage_name))
    try:
        os.makedirs(where, mode=0o700, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o600)  # O_NONBLOCK: a FIFO at the name fails at once, never waits
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
    except OSError:
        return None
    try:
        os.write(fd, str(os.getpid()).encode("ascii"))
    finally:
        os.close(fd)
    return path


def relays_running() -> list[tuple[str, int]]:
    """(slot, pid) of each relay running here: its note, and a live process of this program."""
    try:
        names = os.listdir(directory())
    except OSError:
        return []
    found = []
    prefix, suffix = RELAY.split("{slot}")
    for name in sorted(names):
        if not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        try:  # a regular file only, never through a link: a FIFO there must not hang `status`
            pid = int(read_regular(os.path.join(directory(), name), 16, follow_symlinks=False))
        except (OSError, ValueError):
            continue
        if this_program(pid, "relay"):
            found.append((name[len(prefix) : -len(suffix)], pid))
    return found
