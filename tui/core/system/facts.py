"""Whether this process may ask the system about other processes at all.

`ASSISTANT_AUTH_SYSTEM=none` takes every such fact away (no peer credentials, no process table),
as on a system that says nothing: what a decision resting on those facts does there can be tried
on any machine. The project's tests run the token agent's own tests once more that way; a person
can too. Read once, at the first question. Plain `os`: on `token`'s path through the agent."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path through the agent
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

VARIABLE = "ASSISTANT_AUTH_SYSTEM"
NONE = "none"


def says_nothing() -> bool:
    return os.environ.get(VARIABLE, "").strip().lower() == NONE


def in_ssh_session(env: Mapping[str, str] | None = None) -> bool:
    """This process runs in a session an SSH server started (sshd sets these for every session):
    the machine is one reached over SSH, whatever a socket's name says."""
    env = os.environ if env is None else env
    return bool(env.get("SSH_CONNECTION") or env.get("SSH_TTY") or env.get("SSH_CLIENT"))
