"""Why a token request through the agent failed, said for where it is read. The agent's own
machine reads the core's message as it is (its paths and "run `assistant-auth login`" are right
there). A server reached through ssh reads a sentence about the person's own machine instead: it
never advises `assistant-auth login` on the server (that would store the refresh token the agent
exists to keep away) nor shows the laptop's paths. The agent names the cause (`cause_of`, pure);
the client on the server words it in its reader's language (`server_words`)."""

from __future__ import annotations

from tui.core.agent.wire.protocol import EXIT_UNMET
from tui.core.errors import EXIT_SIGN_IN, AuthError
from tui.core.phrase import N_, Phrase

NOT_SIGNED_IN, REJECTED, UNKNOWN_SLOT, UNKNOWN_PROVIDER, DAMAGED, UNKNOWN_ACCOUNT, AMBIGUOUS_ACCOUNT = (
    "not signed in",
    "rejected",
    "unknown slot",
    "unknown provider",
    "damaged",
    "unknown account",
    "ambiguous account",
)

SERVER_WORDS = {  # cause -> (what a server's reader is told, the exit code)
    NOT_SIGNED_IN: (N_("not signed in on your own machine: run `assistant-auth login` there"), EXIT_SIGN_IN),
    REJECTED: (
        N_("your sign-in on your own machine was rejected: sign in again there (`assistant-auth login`)"),
        EXIT_SIGN_IN,
    ),
    UNKNOWN_SLOT: (
        N_("no slot named {value} on your own machine: `assistant-auth status` here lists the slots it serves"),
        EXIT_UNMET,
    ),
    UNKNOWN_PROVIDER: (N_("no provider named {value} in config.toml on your own machine"), EXIT_UNMET),
    UNKNOWN_ACCOUNT: (
        N_("no account named {value} on your own machine: `assistant-auth status` there lists them"),
        EXIT_UNMET,
    ),
    AMBIGUOUS_ACCOUNT: (
        N_("both regions on your own machine have an account named {value}: add --region cn or --region global"),
        EXIT_UNMET,
    ),
    DAMAGED: (
        N_("the credential file on your own machine cannot be read: run `assistant-auth doctor` there"),
        EXIT_SIGN_IN,
    ),
}


def cause_of(exc: AuthError, selector: tuple[tuple[str, str], ...]) -> str | None:
    """The cause of a failed token lookup, when a server words it otherwise (None: the message
    as it is, with the agent's paths removed: a server's trouble, a lifetime that cannot be met)."""
    if exc.transient:
        return None
    message = exc.message
    named = dict(selector)
    if message.startswith("credentials not found at "):
        return UNKNOWN_SLOT if "slot" in named else NOT_SIGNED_IN
    if message.startswith("No provider named "):
        return UNKNOWN_PROVIDER
    if message.startswith("No account named "):
        return UNKNOWN_ACCOUNT
    if message.startswith("Both regions have an account named "):
        return AMBIGUOUS_ACCOUNT
    if message.startswith("login expired and refresh failed"):
        return REJECTED
    if message.startswith("Failed to parse OAuth credentials"):
        return DAMAGED
    return None


def server_words(cause: object, value: object = "") -> tuple[Phrase, int] | None:
    """(the sentence, the exit code) a server's reader gets for `cause`; None for an unknown cause."""
    if not isinstance(cause, str) or cause not in SERVER_WORDS:
        return None
    template, code = SERVER_WORDS[cause]
    return Phrase(template, value=value if isinstance(value, str) else ""), code
