"""Every path and name both sides of the token agent agree on, defined once.

- Beside an agent's socket: its lock (`<socket>.lock`), the word that its `--lifetime` ended
  (`<socket>.ended`) and `--confirm`'s answer key (`<socket>.key`).
- The stable place: `$XDG_RUNTIME_DIR/assistant-auth/agent.sock`, or on a system without a
  runtime directory (macOS, the BSDs) `<config dir>/agent/agent.sock`.
- A forwarded socket `assistant-auth ssh` makes on a server: `/tmp/assistant-auth-<16 hex>.sock`,
  and its registration under `<config dir>/forwarded/` (`<id>.sock`, `latest.sock`).
- How long a socket's path may be (`SUN_PATH`, the system's: `tui.core.system.sockets`).

Plain `os`: the client's path through the agent reads it (`make bench`, figure 6)."""

from __future__ import annotations

import os

from tui.core.agent.wire import (  # the two environment names (the package's: token's path reads them)
    PID_ENV,
    SOCKET_ENV,
)
from tui.core.system.sockets import SUN_PATH, fits

__all__ = [
    "ENDED",
    "PID_ENV",
    "SOCKET_ENV",
    "FORWARDED_DIR",
    "HOME_DIR",
    "KEY",
    "LATEST",
    "LOCK",
    "STABLE_DIR",
    "STABLE_NAME",
    "SUN_PATH",
    "ended_of",
    "fits",
    "forwarded_socket",
    "ident_of",
    "is_forwarded",
    "key_of",
    "lock_of",
]

LOCK, ENDED, KEY = ".lock", ".ended", ".key"
KEY_HEX = 32  # an answer key's length: hex characters, 128 bits
STABLE_DIR, STABLE_NAME = "assistant-auth", "agent.sock"
HOME_DIR = "agent"  # the stable place in the config dir, where sessions have no runtime directory (macOS)
FORWARDED_DIR, LATEST = "forwarded", "latest.sock"
FORWARD_PREFIX, FORWARD_SUFFIX, FORWARD_HEX = "assistant-auth-", ".sock", 16  # the server's /tmp name


def lock_of(socket_path: str) -> str:
    return socket_path + LOCK


def ended_of(socket_path: str) -> str:
    return socket_path + ENDED


def key_of(socket_path: str) -> str:
    return socket_path + KEY


def forwarded_socket(ident: str) -> str:
    """The server's end of one `assistant-auth ssh` connection (`ident`: 16 hex characters)."""
    return f"/tmp/{FORWARD_PREFIX}{ident}{FORWARD_SUFFIX}"  # noqa: S108 - a path on the server, named above


def ident_of(path: str) -> str | None:
    """The connection's id in a forwarded socket's name, or None when the name is not one."""
    name = os.path.basename(path)
    if not (name.startswith(FORWARD_PREFIX) and name.endswith(FORWARD_SUFFIX)):
        return None
    ident = name[len(FORWARD_PREFIX) : -len(FORWARD_SUFFIX)]
    return ident if len(ident) == FORWARD_HEX and all(c in "0123456789abcdef" for c in ident) else None


def is_forwarded(path: str) -> bool:
    """`path` names a forwarded socket: one `assistant-auth ssh` made, or one registered on the
    server (`…/forwarded/…`). By its name only: `tui.core.agent.source` knows more."""
    return ident_of(path) is not None or os.path.basename(os.path.dirname(path)) == FORWARDED_DIR
