"""The background agent (`assistant-auth agent` without `--foreground`): this program started
again, in a session of its own, without the terminal or the shell's pipes (ssh-agent's detach),
serving the socket the command bound.

Not a plain `fork`: a forked child that goes on running Python is a known crash class on macOS
(the system's proxy lookup, which httpx makes for every refresh, uses frameworks that a fork
without exec leaves broken), so the child is a new program (`subprocess`: fork and exec in one
step, no Python code between them), handed

- the listening socket, an inherited descriptor (`agent --adopt FD`: only a number on its command
  line, where `ps` shows it);
- over a private socket pair on its stdin: the socket's path, the answer key, which files are the
  agent's own to remove, its --lifetime and --confirm;

and it answers "ready" once it holds the socket: the shell lines are printed only for an agent
that runs, and a child that cannot start is said, its socket removed."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tui.core.agent.server import place
from tui.core.system.unix import channel_on, channel_pair, inherited_listener
from tui.core.text.phrase import N_, Phrase

if TYPE_CHECKING:
    import socket

ADOPT = "--adopt"
READY = "ready"
START_WAIT = 60.0  # seconds for the new process to start and take the socket (a loaded machine)
HANDED_AT_MOST = 1 << 16
# the settings that name a path, read by this program, Python or TLS: relative to the command's
# directory, they would mean another one in the agent's (`/`)
PATH_SETTINGS = (
    "ASSISTANT_CODE_HOME",
    "HOME",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "TMPDIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "PYTHONPATH",
)
PATH_LISTS = frozenset({"PYTHONPATH", "SSL_CERT_DIR"})  # lists of paths, os.pathsep between them

NOT_STARTED = N_("assistant-auth agent: the background agent did not start: {reason}")

RELATIVE_NOWHERE = N_("{name} is a relative path and this directory no longer exists: make it absolute")

_started: list[subprocess.Popen[bytes]] = []  # kept, not waited for: the command ends at once


class NotStarted(Exception):
    """The background agent did not start; the message says why."""


@dataclasses.dataclass(frozen=True)
class Handed:
    """What the background agent is handed: its socket and how it serves."""

    path: str
    key: str | None
    lifetime: float | None
    confirm: bool
    socket_inode: int | None = None
    key_inode: int | None = None


def start(listener: socket.socket, handed: Handed, env: dict[str, str] | None = None) -> int:
    """Start the background agent serving `listener` and return its pid once it said it is ready
    (NotStarted, said, when it is not: its socket is then removed by the caller). `env` is its
    environment (`absolute_paths` of this one's: it runs in `/`)."""
    ours, theirs = channel_pair()
    descriptor = listener.fileno()
    try:
        child = subprocess.Popen(  # noqa: S603 - this interpreter and this program, our own words
            [sys.executable, "-m", "tui.cli", "agent", ADOPT, str(descriptor)],
            stdin=theirs.fileno(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(descriptor,),
            cwd="/",
            start_new_session=True,
            env=_same_program(os.environ if env is None else env),
        )
    except OSError as exc:
        ours.close()
        raise NotStarted(Phrase(NOT_STARTED, reason=exc.strerror or str(exc))) from None
    finally:
        theirs.close()
    _started.append(child)
    with ours:
        try:
            ours.sendall(json.dumps(dataclasses.asdict(handed)).encode("utf-8") + b"\n")
            ours.settimeout(START_WAIT)
            answer = _line(ours)
        except OSError as exc:
            answer = exc.strerror or str(exc)
    if answer != READY:
        with contextlib.suppress(OSError):
            child.kill()
        reason = answer or Phrase(N_("it ended at once (exit {code})"), code=child.wait(10))
        raise NotStarted(Phrase(NOT_STARTED, reason=reason))
    return child.pid


def absolute_paths(env: Mapping[str, str], cwd: str) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """`env` for a process that runs in `/`: every path setting this program (or Python, or TLS)
    reads that is relative to `cwd` made absolute, and (name, as it was, as it is now) for each
    one changed: the agent then reads the files its command meant, and the command says so. A
    value beginning with `~` is the home's (expanded where it is read), left as it is."""
    made = dict(env)
    changed: list[tuple[str, str, str]] = []
    for name in PATH_SETTINGS:
        value = env.get(name)
        if value is None or value.strip() == "":
            continue
        words = value.split(os.pathsep) if name in PATH_LISTS else [value]
        now = os.pathsep.join(_absolute(word, cwd, name) for word in words)
        if now != value:
            made[name] = now
            changed.append((name, value, now))
    return made, changed


def _absolute(word: str, cwd: str, name: str) -> str:
    stripped = word.strip()
    if stripped.startswith("~") or os.path.isabs(stripped):
        return word
    if not cwd:  # the command's directory is gone: the setting means no directory at all
        raise NotStarted(Phrase(RELATIVE_NOWHERE, name=name))
    return os.path.normpath(os.path.join(cwd, stripped))


def _same_program(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of the background agent: `env`, with this program's own package first
    on Python's path, so the new process runs the same code as the command that starts it."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__)))))
    before = env.get("PYTHONPATH", "")
    return {**env, "PYTHONPATH": root + (os.pathsep + before if before else "")}


def _line(conn: socket.socket) -> str:
    received = b""
    while not received.endswith(b"\n") and len(received) < HANDED_AT_MOST:
        chunk = conn.recv(4096)
        if not chunk:
            break
        received += chunk
    return received.decode("utf-8", "replace").strip()


def adopted(descriptor: int) -> tuple[socket.socket, Handed]:
    """In the background agent: the socket and what it was handed (on stdin), checked (a listening
    Unix socket bound at the path it was told), then stdin let go and "ready" said. NotStarted
    (said back to the command that started it) when anything is not as it should be."""
    channel = channel_on(0)
    with channel:
        try:
            channel.settimeout(START_WAIT)
            fields = json.loads(_line(channel))
            handed = _checked(fields)
            listener = inherited_listener(descriptor, handed.path)
        except (OSError, ValueError, TypeError) as exc:
            with contextlib.suppress(OSError):
                channel.sendall(str(exc).encode("utf-8", "replace")[:1000] + b"\n")
            raise NotStarted(str(exc)) from None
        place.adopt(handed.path, handed.socket_inode, handed.key_inode)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        channel.sendall(READY.encode("ascii") + b"\n")
    return listener, handed


def _checked(fields: object) -> Handed:
    """What was handed, each field of its type (ValueError otherwise)."""
    if not isinstance(fields, dict) or set(fields) - {f.name for f in dataclasses.fields(Handed)}:
        raise ValueError("not what an agent is handed")
    handed = Handed(**fields)
    whole = (int, type(None))
    kinds = [
        isinstance(handed.path, str),
        isinstance(handed.key, (str, type(None))),
        isinstance(handed.lifetime, (int, float, type(None))) and not isinstance(handed.lifetime, bool),
        isinstance(handed.confirm, bool),
        isinstance(handed.socket_inode, whole) and not isinstance(handed.socket_inode, bool),
        isinstance(handed.key_inode, whole) and not isinstance(handed.key_inode, bool),
    ]
    if not all(kinds):
        raise ValueError("not what an agent is handed")
    return handed
