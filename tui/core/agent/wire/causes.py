"""Why a token request through the agent failed, said for where it is read. The agent's own
machine reads the core's message as it is (its paths and "run `assistant-auth login`" are right
there). A server reached through ssh reads a sentence about the person's own machine instead: it
never advises `assistant-auth login` on the server (that would store the refresh token the agent
exists to keep away) nor shows the laptop's paths. The agent names the cause (`cause_of`, pure);
the client on the server words it in its reader's language (`server_words`)."""

from __future__ import annotations

from tui.core.errors import EXIT, Problem
from tui.core.slots.selector import Selector
from tui.core.spec.settings import REGIONS
from tui.core.text.phrase import N_, Phrase

NOT_SIGNED_IN, REJECTED, UNKNOWN_SLOT, UNKNOWN_PROVIDER, DAMAGED, UNKNOWN_ACCOUNT, AMBIGUOUS_ACCOUNT = (
    Problem.NOT_SIGNED_IN,
    Problem.REJECTED,
    Problem.UNKNOWN_SLOT,
    Problem.UNKNOWN_PROVIDER,
    Problem.DAMAGED,
    Problem.UNKNOWN_ACCOUNT,
    Problem.AMBIGUOUS_ACCOUNT,
)  # a cause on the wire is the failure's kind (`tui.core.errors.Problem`), its exit code `EXIT`'s

SERVER_WORDS = {  # cause -> what a server's reader is told
    NOT_SIGNED_IN: N_("not signed in on your own machine: run `{command}` there"),
    REJECTED: N_("your sign-in on your own machine was rejected: sign in again there (`{command}`)"),
    UNKNOWN_SLOT: N_(
        "no slot named {value} on your own machine: `assistant-auth status` here lists the slots it serves"
    ),
    UNKNOWN_PROVIDER: N_("no provider named {value} in config.toml on your own machine"),
    UNKNOWN_ACCOUNT: N_("no account named {value} on your own machine: `assistant-auth status` there lists them"),
    AMBIGUOUS_ACCOUNT: N_(
        "both regions on your own machine have an account named {value}: add --region cn or --region global"
    ),
    DAMAGED: N_("the credential file on your own machine cannot be read: run `assistant-auth doctor` there"),
}


def cause_of(kind: str | None, transient: bool) -> str | None:
    """The cause of a failed token lookup of `kind` (as the selector makes it: a missing file is an
    unknown slot when a slot was named), when a server words it otherwise (None: the message as it
    is, with the agent's paths removed: a server's trouble, a lifetime that cannot be met). By the
    failure's kind, never its words."""
    if transient:
        return None
    return kind if kind in SERVER_WORDS else None


def server_words(cause: object, selector: Selector) -> tuple[Phrase, int] | None:
    """(the sentence, the exit code) a server's reader gets for `cause` of a request for
    `selector`; None for an unknown cause. A sign-in it advises is the one for that slot."""
    if not isinstance(cause, str) or cause not in SERVER_WORDS:
        return None
    value = selector.slot or selector.provider or selector.account or ""
    return Phrase(SERVER_WORDS[cause], value=value, command=login_for(selector)), EXIT[cause]


def login_for(selector: Selector) -> str:
    """The sign-in, on the person's own machine, that writes the slot `selector` names."""
    if selector.account is not None:
        return f"assistant-auth login --account {selector.account}" + (
            f" --region {selector.region_word}" if selector.region_word else ""
        )
    if selector.region_word in REGIONS and selector.slot is None and selector.provider is None:
        return f"assistant-auth login --region {selector.region_word}"
    return "assistant-auth login"
