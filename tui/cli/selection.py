"""The slot a command's selector flags name (`--slot`, `--region`, `--provider`, `--base-url`…),
for the argparse-dispatched commands; the rules of the flags themselves are in `options`."""

from __future__ import annotations

from tui.cli.options import selector_of, selector_problem
from tui.cli.output import err, fail
from tui.core.agent.source import signs_in_here
from tui.core.errors import AuthError, Problem
from tui.core.slots.choice import Selection, select_for, storage_name_of
from tui.core.text.i18n import _


def selection(ns) -> Selection:
    """The slot the flags name (AuthError when a provider is unknown or config.toml is unreadable)."""
    return select_for(selector_of(ns))


def selector_usable(ns) -> bool:
    """False after saying on stderr why the selector flags cannot go together (exit 2)."""
    problem = selector_problem(selector_of(ns))
    if problem:
        err(_("assistant-auth: {problem}").format(problem=problem))
    return problem is None


def selected_slot(ns) -> str | None:
    """The storage name the flags select; None after saying why not on stderr (exit 2)."""
    if not selector_usable(ns):
        return None
    try:
        return storage_name_of(selection(ns))
    except AuthError as exc:
        say_failure(exc, getattr(ns, "account", None))
        return None


def say_failure(exc: AuthError, account: str | None) -> None:
    """A selection that failed, said with a next step that fits here: on a server the agent
    serves, an account that is not here is on the person's own machine (never "sign in here")."""
    if exc.kind == Problem.UNKNOWN_ACCOUNT and account and not signs_in_here():
        err(
            _(
                "assistant-auth: no account named {name} on this machine: its tokens come from the token agent "
                "on your own machine, where the accounts are (`assistant-auth status` here lists them)."
            ).format(name=account)
        )
    else:
        fail(exc)
