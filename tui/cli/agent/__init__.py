"""The token agent's commands, one module each: `agent` (serve.py), `ssh`, `relay`, and `status`
through the agent; here, as gh keeps a command group's flags beside it, their flags and help: built
by `tui.cli.parser` for every argparse command and completion, so nothing here loads a handler."""

from __future__ import annotations

import argparse

from tui.cli.options import add_selector
from tui.core.text.i18n import _


def agent_flags(sub) -> None:
    p = sub.add_parser(
        "agent",
        help=_("keep your sign-in on this machine and serve access tokens (ssh-agent style)"),
        description=_(
            'The token agent: `eval "$(assistant-auth agent)"` starts it in the background and points this shell '
            "at it; programs here, and on servers reached with `assistant-auth ssh`, get access tokens from it, "
            "while the refresh token never leaves this machine."
        ),
    )
    p.add_argument("--json", action="store_true", help=_("print the socket and pid as JSON"))
    p.add_argument("--adopt", type=int, metavar="FD", help=argparse.SUPPRESS)  # the background agent's own start
    p.add_argument(
        "-a",
        "--socket",
        metavar="PATH",
        help=_(
            "listen at PATH (default: $XDG_RUNTIME_DIR/assistant-auth/agent.sock; on macOS and the BSDs "
            "~/.assistant-code/agent/agent.sock; else a new private directory)"
        ),
    )
    p.add_argument("--foreground", action="store_true", help=_("stay in the foreground (a service unit, a terminal)"))
    p.add_argument("--stop", action="store_true", help=_("stop the running agent"))
    p.add_argument(
        "--lifetime", metavar="TIME", help=_("stop serving after TIME (90, 30m, 1h30m, 2d: as ssh-agent reads it)")
    )
    shells = p.add_mutually_exclusive_group()
    shells.add_argument("-s", dest="shell", action="store_const", const="sh", help=_("print sh lines (bash, zsh)"))
    shells.add_argument("-c", dest="shell", action="store_const", const="csh", help=_("print csh lines (tcsh)"))
    shells.add_argument("--fish", dest="shell", action="store_const", const="fish", help=_("print fish lines"))
    p.add_argument(
        "--confirm",
        action="store_true",
        help=_(
            "ask before the first token of each new connection (in the foreground view, else in the wizard open "
            "on this machine)"
        ),
    )


def complete_ssh(prefix: str, parsed_args=None, **_) -> list[str]:
    """`assistant-auth ssh <TAB>` (`tui.cli.agent.completion`): loaded when a shell asks."""
    from tui.cli.agent.completion import complete  # lazy: only when a shell completes `ssh`

    return complete(prefix, parsed_args)


def ssh_flags(sub) -> None:
    p = sub.add_parser(
        "ssh",
        help=_("ssh to a server with the token agent forwarded"),
        description=_(
            "The system ssh, with the token agent's socket forwarded to a fresh private path on the server and "
            "ASSISTANT_AUTH_SOCK set there: `assistant-auth token` and `exec` on the server get tokens from "
            "this machine. Starts an agent for the connection when none runs."
        ),
    )
    p.add_argument("--relay", action="store_true", help=_("also run the relay on the server while connected"))
    p.add_argument(
        "arguments", nargs=argparse.REMAINDER, metavar="[SSH OPTIONS] HOST [COMMAND...]"
    ).completer = complete_ssh


def relay_flags(sub) -> None:
    p = sub.add_parser(
        "relay",
        help=_("on a server: keep the official client's credential file filled from the token agent"),
        description=_(
            "On a server reached with `assistant-auth ssh --relay`: keeps the slot's credential file filled with "
            "an access token from the token agent (the refresh token stays on your own machine), renewed before "
            "the official client would try to refresh it. It never writes over a sign-in of this machine, and "
            "stops when the agent goes away; the token it wrote then simply expires."
        ),
    )
    p.add_argument("--once", action="store_true", help=_("write the file once and exit"))
    p.add_argument("--quiet", action="store_true", help=_("say only what goes wrong, not each renewal"))
    add_selector(p, keys=False)  # the selectors the agent is asked by
