"""Whether this process may ask the system about other processes at all.

`ASSISTANT_AUTH_SYSTEM=none` takes every such fact away (no peer credentials, no process table),
as on a system that says nothing: what a decision resting on those facts does there can be tried
on any machine. The project's tests run the token agent's own tests once more that way; a person
can too. Read once, at the first question. Plain `os`: on `token`'s path through the agent."""

from __future__ import annotations

import os

VARIABLE = "ASSISTANT_AUTH_SYSTEM"
NONE = "none"


def says_nothing() -> bool:
    return os.environ.get(VARIABLE, "").strip().lower() == NONE
