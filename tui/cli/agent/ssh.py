"""`assistant-auth ssh [--relay] [ssh options] HOST [COMMAND…]`: the system `ssh`, with the token
agent's socket forwarded to a fresh private path on the server (`-R`), and `ASSISTANT_AUTH_SOCK` set
for the remote shell or command; the path is removed there when the shell or command ends. With
`--relay`, `assistant-auth relay` runs on the server beside it (the official client's credential
file kept filled with access tokens, `tui.cli.agent.relay`) and is stopped when it ends.

The agent is the one this shell points at (`ASSISTANT_AUTH_SOCK`) when it answers; otherwise one
is started for this connection alone, in this process, and stopped when `ssh` ends (a refresh in
flight is stored first). Parsed by hand: everything but the host and the command is ssh's.
"""

from __future__ import annotations

import os
import secrets
import shlex
import subprocess
import sys

from tui.cli.agent.ssh_words import OURS, OURS_WITH_VALUE
from tui.cli.output import EXIT_ERROR, err, fail, help_out
from tui.cli.usage import SSH_HELP
from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.client.forwarded import registration
from tui.core.agent.client.trouble import same_files
from tui.core.agent.server import lifecycle, place
from tui.core.agent.source import socket_path
from tui.core.agent.ssh.sshline import Usage, split, without_flag
from tui.core.agent.wire.naming import forwarded_socket, ident_of
from tui.core.agent.wire.protocol import Request
from tui.core.errors import AuthError
from tui.core.signals import forwarding_to
from tui.core.slots.accounts import name_problem
from tui.core.slots.lookup import find
from tui.core.spec.settings import REGIONS
from tui.core.text.i18n import _
from tui.core.text.phrase import N_, said
from tui.core.text.untrusted import one_line

SSH_FAILED = 255


def remote_command(
    remote: str,
    command: list[str],
    relay: bool = False,
    wait: bool = False,
    account: str | None = None,
    region: str | None = None,
) -> str:
    """What the server's shell runs: the variable set and exported, the connection registered at the
    server's stable place (`tui.core.agent.client.forwarded`), the socket's path and its registration
    removed when the shell or command ends (however it ends), then the command (as ssh joins it), a
    login shell, or (`wait`, for `-N`) nothing until the connection ends. With `relay`,
    `assistant-auth relay --quiet` runs beside it (feeding the official client there the named
    `account`'s token, else the active one's) and is stopped when it ends."""
    quoted = shlex.quote(remote)
    start, end = registration(remote, ident_of(remote) or "")
    head = (
        f"{place.SOCKET_ENV}={quoted}; export {place.SOCKET_ENV}; relay_pid=; {start}"
        f"aa_end() {{ ${{relay_pid:+kill $relay_pid}} 2>/dev/null; rm -f {quoted}; {end}; }}; "
        "trap aa_end EXIT; trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM; "
    )
    if relay:
        chosen = (f" --account {shlex.quote(account)}" if account else "") + (
            f" --region {shlex.quote(region)}" if region else ""
        )
        missing = shlex.quote(_(NO_RELAY_THERE))
        head += (
            "if command -v assistant-auth >/dev/null 2>&1; then "
            f"assistant-auth relay --quiet{chosen} </dev/null & relay_pid=$!; "
            f"else printf '%s\\n' {missing} >&2; fi; "
        )
    if wait:  # -N: no command, only the forwarding, registered while the connection lasts (without a
        # terminal sshd sends no hangup when it ends: the session's sshd going away is the sign)
        return head + 'while kill -0 "$PPID" 2>/dev/null; do sleep 1; done'
    return head + (" ".join(command) if command else '"${SHELL:-/bin/sh}" -l')


def ssh_argv(
    options: list[str],
    host: str,
    command: list[str],
    local: str,
    remote: str,
    tty: bool,
    relay: bool = False,
    account: str | None = None,
    region: str | None = None,
) -> list[str]:
    argv = ["ssh", "-o", "ExitOnForwardFailure=yes", "-R", f"{remote}:{local}"]
    options, forward_only = without_flag(options, "N")  # -N: registered on the server while it lasts
    if tty and not command and not forward_only:
        argv.append("-t")  # a remote command gets no terminal by itself: the login shell needs one
    return (
        argv
        + options
        + [host, remote_command(remote, command, relay, wait=forward_only, account=account, region=region)]
    )


def relay_account_problem(relay: bool, account: str | None, region: str | None = None) -> str | None:
    """`--account` and `--region` name what the relay feeds the official client on the server:
    they need `--relay` (`token --account` there asks for any account itself), a valid name, a
    region that is one; the account is settled here, before connecting (`settled_problem`)."""
    if account is None and region is None:
        return None
    if not relay:
        return _(
            "--account and --region go with --relay (on the server, `assistant-auth token --account NAME` asks for any)"
        )
    if region is not None and region not in REGIONS:
        return _("unknown region {value}: use cn or global").format(value=repr(region))
    return name_problem(account) if account is not None else None


def settled_problem(account: str | None, region: str | None) -> AuthError | None:
    """The account as this machine's files have it (this is the agent's machine): none, or in both
    regions with no region said, is refused before ssh starts."""
    if account is None:
        return None
    try:
        find(account, region)
    except AuthError as exc:
        return exc
    return None


def run(ns) -> int:
    return run_fast((["--relay"] if getattr(ns, "relay", False) else []) + list(ns.arguments))


def run_fast(args: list[str]) -> int:
    if args[:1] in (["-h"], ["--help"]):
        help_out(_(SSH_HELP))
        return 0
    try:
        ours, options, host, command = split(args, OURS, OURS_WITH_VALUE)
    except Usage:
        host = None
    if host is None:
        err(
            _(
                "assistant-auth: usage: assistant-auth ssh [--relay [--account NAME] [--region cn|global]] [SSH OPTIONS] HOST [COMMAND...]"
            )
        )
        return EXIT_ERROR
    relay = "--relay" in ours  # the relay for the official client there
    account, region = ours.get("--account"), ours.get("--region")
    problem = relay_account_problem(relay, account, region)
    if problem:
        err(_("assistant-auth: {problem}").format(problem=problem))
        return EXIT_ERROR
    unsettled = settled_problem(account, region)
    if unsettled is not None:  # before connecting: never a shell whose relay cannot start
        fail(unsettled)
        return unsettled.exit_code
    # the server's /tmp: a 64-bit random name no other user can guess; sshd makes the socket 0600
    remote = forwarded_socket(secrets.token_hex(8))
    local = socket_path() or _stable_agent() or ""  # the shell's agent, else the one every shell finds
    own: lifecycle.InProcess | None = None
    if not local or not _answers(local):
        if local:  # the person's agent, with whatever policy they chose, is not there: never replaced silently
            err(one_line(_(NOT_ANSWERING).format(socket=local, variable=place.SOCKET_ENV), 2000))
        try:
            own = lifecycle.InProcess()
        except place.NoPlace as exc:
            err(one_line(said(exc.args[0]), 2000))
            return EXIT_ERROR
        local = own.path
    try:
        argv = ssh_argv(options, host, command, local, remote, sys.stdin.isatty(), relay, account, region)
        try:
            child = subprocess.Popen(argv)  # noqa: S603 - the system ssh with the person's own arguments, no shell here
        except OSError as exc:
            err(_("assistant-auth ssh: cannot run ssh: {reason}").format(reason=exc.strerror or exc))
            return EXIT_ERROR
        with forwarding_to(child.send_signal):
            code = child.wait()
    finally:
        if own is not None:
            own.stop()
    if code == SSH_FAILED:
        err(
            _(
                "assistant-auth ssh: ssh ended with an error (above). If it says the remote forwarding failed, "
                "the server does not allow forwarding a socket (AllowStreamLocalForwarding): `assistant-auth help "
                "agent` says what to do."
            )
        )
    return 128 - code if code < 0 else code


NO_RELAY_THERE = N_(
    "assistant-auth ssh: the relay does not run here: `assistant-auth` is not on this server's PATH for the "
    "non-interactive shell ssh runs commands in (install it here, or add its directory to PATH in the shell's "
    "startup file); `assistant-auth token` here cannot run either"
)
NOT_ANSWERING = N_(
    "assistant-auth ssh: the token agent at {socket} ({variable}) does not answer; this connection is served "
    "by an agent of its own that asks nobody (no --confirm) and ends with it. Restart yours on this machine "
    '(eval "$(assistant-auth agent)", with the options you use) before the next connection.'
)


def _stable_agent() -> str | None:
    """The agent serving this home at the stable place, when one answers there (a user service, an
    `eval "$(assistant-auth agent)"` of another shell): this connection uses it, with its policy."""
    stable = place.stable_path()
    if stable is None or not os.path.exists(stable):
        return None
    try:
        alive = ask(Request("ping"), stable, timeout=10)
    except AgentUnavailable:
        return None
    home = alive.get("home")
    return stable if isinstance(home, str) and same_files(home) else None


def _answers(path: str) -> bool:
    """An agent answers at `path`: any answer of the protocol counts (an agent of an earlier
    version refuses `ping` as an unknown operation, and still serves)."""
    try:
        ask(Request("ping"), path, timeout=10)
    except AgentUnavailable:
        return False
    return True
