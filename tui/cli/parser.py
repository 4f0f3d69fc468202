"""The command line's grammar: every command's flags, declared here and only here.

`build()` runs for every argparse-dispatched command and for every shell completion, so it loads
no handler: a command module (`tui.cli.<command>`) is imported by `handler()` only once argparse
has chosen it, and may import everything it needs at its top. `assistant-auth token` never comes
here (it parses its flags by hand, see `tui.cli.token`).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tui import __version__
from tui.cli import agent as agent_flags
from tui.cli.argparse_words import CellFormatter, speak
from tui.cli.options import add_region, add_selector, complete_accounts, complete_regions, region_arg
from tui.cli.usage import EXEC_HELP, TOKEN_HELP
from tui.core.text.i18n import _

SHELLS = ("bash", "zsh", "fish")

# command -> (module, function): one module per command, in the order `--help` lists them
COMMANDS = {
    "login": ("login", "run"),
    "status": ("status", "run"),
    "token": ("token", "run"),
    "exec": ("exec", "run"),
    "refresh": ("refresh", "run"),
    "logout": ("logout", "run"),
    "switch": ("switch", "run"),
    "doctor": ("doctor", "run"),
    "inspect": ("home", "run_inspect"),
    "config": ("home", "run_config"),
    "demo": ("demo", "run"),
    "completion": ("completion", "run"),
    "agent": ("agent.serve", "run"),
    "ssh": ("agent.ssh", "run"),
    "relay": ("agent.relay", "run"),
    "help": ("help", "run"),
}
STATUS_SCHEMA = 1  # of `status --json` (tui.cli.status.SCHEMA_VERSION)


def _login(sub) -> None:
    p = sub.add_parser(
        "login",
        help=_("sign in (opens the wizard)"),
        description=_("Sign in with the device flow: a code to approve in a browser, on any device."),
    )
    add_region(p, _("the region of the account: cn (default) or global"))
    p.add_argument(
        "--account",
        metavar="NAME",
        help=_("sign in to a named account of its own (work, personal, team-2), and make it the active one"),
    ).completer = complete_accounts
    p.add_argument("--no-tui", action="store_true", help=_("plain text on stderr instead of the wizard"))
    p.add_argument("--no-browser", action="store_true", help=_("never open a browser (print the address only)"))
    p.add_argument("--json", action="store_true", help=_("with --no-tui: JSON lines on stdout for scripts"))
    p.add_argument(
        "--force", action="store_true", help=_("sign in again even when the region's session is still usable")
    )
    p.add_argument(
        "--new",
        action="store_true",
        help=_("abandon a sign-in still waiting for approval (from another or a lost terminal) and start fresh"),
    )


def _status(sub) -> None:
    p = sub.add_parser(
        "status",
        help=_("state of every credential slot"),
        description=_(
            "Show every credential slot, its state and who is signed in, never a token. The slot "
            "marked * is the one `assistant-auth token` would use (with a selector: the selected one). "
            "Exit 0 when that slot is usable, 1 when it is not, 2 on a usage error."
        ),
    )
    p.add_argument(
        "--json",
        action="store_true",
        help=_("one JSON object on stdout for scripts (schema_version {version})").format(version=STATUS_SCHEMA),
    )
    add_selector(p)


def _token(sub) -> None:
    description = _(TOKEN_HELP).split("\n\n")[1]
    p = sub.add_parser("token", help=_("print a valid access token"), description=description)
    p.add_argument(
        "--json", action="store_true", help=_("one JSON object with the token, its expiry, slot, region and identity")
    )
    p.add_argument("--min-ttl", metavar="SECONDS", help=_("the token must live at least that long (at least 30)"))
    add_selector(p)


def _exec(sub) -> None:
    description = _(EXEC_HELP).split("\n\n")[1]
    p = sub.add_parser(
        "exec", help=_("run a program with a valid access token in its environment"), description=description
    )
    p.add_argument(
        "--env", metavar="NAME", help=_("the variable that carries the token (default ASSISTANT_ACCESS_TOKEN)")
    )
    p.add_argument("--min-ttl", metavar="SECONDS", help=_("the token must live at least that long (at least 30)"))
    add_selector(p)
    p.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")


def _refresh(sub) -> None:
    p = sub.add_parser(
        "refresh",
        help=_("refresh now; prints the new expiry"),
        description=_(
            "Refresh the access token now with the stored refresh token, and print the new expiry. "
            "Exit codes: 0 refreshed; 1 sign in again; 2 usage; 3 transient (network or server trouble: retry later)."
        ),
    )
    add_selector(p)
    p.add_argument("--json", action="store_true", help=_("one JSON object on stdout for scripts"))


def _logout(sub) -> None:
    p = sub.add_parser(
        "logout",
        help=_("remove a slot's credential file"),
        description=_(
            "Sign out: remove a slot's credential file. Asks first on a terminal. Signing out of the active "
            "account switches the managed provider to another signed-in account, and says which."
        ),
    )
    add_selector(p)
    p.add_argument(
        "--yes", "-y", action="store_true", help=_("do not ask for confirmation (needed without a terminal)")
    )


def _switch(sub) -> None:
    p = sub.add_parser(
        "switch",
        help=_("choose the account the managed provider (and the official client) uses"),
        description=_(
            "Point the provider managed:assistant-code of config.toml at an account with usable credentials, "
            "without signing in again: NAME as `status` lists it (`default`: a region's own sign-in); --region "
            "alone: that region's default. Without NAME, as `gh auth switch`: the other account when one other is "
            "signed in, else a choice among them. Nothing else changes; the official client follows the switch too."
        ),
    )
    p.add_argument(
        "name", nargs="?", metavar="NAME", help=_("the account to switch to (with --region when both regions have it)")
    ).completer = complete_accounts
    p.add_argument(
        "--region",
        type=region_arg,
        metavar="{cn,global}",
        help=_("the region of NAME; alone, that region's own account (or a choice among its accounts)"),
    ).completer = complete_regions


def _doctor(sub) -> None:
    p = sub.add_parser(
        "doctor",
        help=_("diagnose the network path, files, config and credentials"),
        description=_(
            "Check the network path to each region's authorization host (proxy, CA bundle, DNS, "
            "TCP, TLS, an HTTP round trip that sends no credential, the clock), the private files, "
            "config.toml and every credential slot. Exit 0 when every check is ok or a warning, 1 when one "
            "fails (or a repair failed or was declined), 2 on a usage error."
        ),
    )
    p.add_argument("--fix", action="store_true", help=_("offer each safe repair (asks before each one on a terminal)"))
    p.add_argument(
        "--yes",
        action="store_true",
        help=_("with --fix: apply every repair without asking (required without a terminal)"),
    )
    p.add_argument("--offline", action="store_true", help=_("skip every network check"))
    p.add_argument(
        "--probe",
        action="store_true",
        help=_("also refresh the managed provider's slot (the only check that spends a refresh token)"),
    )
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help=_("one JSON object on stdout (schema_version 1)"))
    output.add_argument(
        "--report",
        action="store_true",
        help=_("the whole result as JSON for a bug report: no secret, no personal data"),
    )


def _inspect_and_config(sub) -> None:
    p = sub.add_parser(
        "inspect", help=_("credential inspector (TUI)"), description=_("Inspect and repair credential files.")
    )
    p.add_argument(
        "--account", metavar="NAME", help=_("open on that account's slot (with --region when both regions have it)")
    ).completer = complete_accounts
    add_region(p, _("with --account: the account's region"))
    sub.add_parser(
        "config", help=_("provider config editor (TUI)"), description=_("View and edit config.toml providers.")
    )


def _demo(sub) -> None:
    p = sub.add_parser(
        "demo",
        help=_("the wizard against a local test server"),
        description=_(
            "Try the sign-in against a local authorization server in a temporary home; your real files are not touched."
        ),
    )
    p.add_argument("--no-tui", action="store_true", help=_("plain text instead of the wizard"))
    p.add_argument(
        "--serve",
        action="store_true",
        help=_(
            "after the sign-in, keep the local server running until Ctrl+C and print the export "
            "lines that let a second shell try status, token, refresh and the rest against it"
        ),
    )
    p.add_argument(
        "--approve-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help=_(
            "approve the code by itself after SECONDS (default: wait for you: approve on the local "
            "page, or press a in the wizard)"
        ),
    )


def _help(sub) -> None:
    p = sub.add_parser(
        "help",
        help=_("read a reference page in the terminal (agent, commands, doctor, ...)"),
        description=_("The reference pages, shipped with the program: without a TOPIC, the list of them."),
    )
    p.add_argument("topic", nargs="?", metavar="TOPIC", help=_("a page: agent, commands, doctor, ..."))


def _completion(sub) -> None:
    p = sub.add_parser(
        "completion",
        help=_("print a shell completion script"),
        description=_(
            'Print the completion script for a shell. bash: add `eval "$(assistant-auth completion '
            'bash)"` to ~/.bashrc; zsh: the same with zsh in ~/.zshrc; fish: `assistant-auth completion fish > '
            "~/.config/fish/completions/assistant-auth.fish`."
        ),
    )
    p.add_argument("shell", choices=SHELLS, help=_("the shell to complete in"))


DECLARE = (
    _login,
    _status,
    _token,
    _exec,
    _refresh,
    _logout,
    _switch,
    _doctor,
    _inspect_and_config,
    agent_flags.agent_flags,
    agent_flags.ssh_flags,
    agent_flags.relay_flags,
    _help,
    _demo,
    _completion,
)


class Parser(argparse.ArgumentParser):
    """argparse, except that a message it cannot write (--help or --version into a full disk or a
    closed pipe) is an error for the one boundary of `tui.cli.main`, not silently dropped."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", CellFormatter)  # every subcommand's help too
        super().__init__(*args, **kwargs)

    def _print_message(self, message: str, file=None) -> None:
        if message:
            target = file or sys.stderr
            target.write(message)
            target.flush()


def build() -> argparse.ArgumentParser:
    speak()  # argparse's own words (usage:, options, its errors) in the reader's language
    parser = Parser(
        prog="assistant-auth",
        description=_(
            "Sign in to your coding-assistant account from a terminal (OAuth 2.0 device flow). "
            "Without a command: the sign-in wizard."
        ),
    )
    parser.add_argument("-v", "--verbose", action="store_true", help=_("log HTTP traffic to stderr, secrets redacted"))
    parser.add_argument("--version", action="version", version=f"assistant-auth {__version__}")
    add_region(parser, _("preselect cn (default) or global in the wizard"))
    parser.add_argument("--no-browser", action="store_true", help=_("never open a browser"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for declare in DECLARE:
        declare(sub)
    return parser


def parse(parser: argparse.ArgumentParser, args: list[str]) -> argparse.Namespace:
    """The namespace of `args`; an argument a command does not take is said with that command's
    usage (argparse says it with the program's, which names no option of the command)."""
    ns, extra = parser.parse_known_args(args)
    if extra:
        commands = next(
            (action.choices for action in parser._actions if isinstance(action, argparse._SubParsersAction)), {}
        )
        chosen = commands.get(ns.command) if ns.command else None
        where = chosen if isinstance(chosen, argparse.ArgumentParser) else parser
        where.error(_("unrecognized arguments: %s") % " ".join(extra))
    return ns


def handler(command: str | None):
    """The function that runs `command` (None: the wizard), its module loaded only now."""
    module, function = COMMANDS[command] if command is not None else ("home", "run")
    return getattr(importlib.import_module(f"tui.cli.{module}"), function)
