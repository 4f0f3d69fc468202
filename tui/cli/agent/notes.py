"""What `token`, `exec` and `status` through the agent share with their failure path (light: the
token path through the agent loads it)."""

from __future__ import annotations

from tui.cli.output import err
from tui.core.phrase import N_, Phrase, said


class UseLocal(Exception):
    """No agent answers, and this machine has a sign-in of its own for the slot: use it (said)."""


def waiting_for_approval() -> None:
    """Said at once when the agent asks its person (--confirm): where to look, and that we wait."""
    err(said(Phrase(N_("assistant-auth: waiting for approval on your own machine (the token agent asks there)…"))))
