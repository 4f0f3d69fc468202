"""`assistant-auth agent`: the token agent, as `ssh-agent` is for keys.

Started plainly it binds its socket in a new private directory, goes to the background and prints
the shell lines that point this shell at it (`eval "$(assistant-auth agent)"`); `--json` prints the
same as JSON; `--foreground` stays (a user service unit, or a terminal: one line per connection
and request, never a token); `--stop` ends the running one (`ASSISTANT_AUTH_SOCK`, else
`ASSISTANT_AUTH_AGENT_PID`); `--lifetime SECONDS` stops serving after that long.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys

from tui.cli.agent.shell_lines import SH, set_lines, shell_of, unset_lines
from tui.cli.output import EXIT_ERROR, EXIT_OK, EXIT_TRANSIENT, err, out, out_json
from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.client.trouble import same_files
from tui.core.agent.server import background, lifecycle, place
from tui.core.agent.server.agent import Event
from tui.core.agent.view import event_line
from tui.core.agent.where import socket_path
from tui.core.agent.wire.protocol import Request
from tui.core.system.process import alive, process, this_program
from tui.core.text.i18n import _
from tui.core.text.phrase import said
from tui.core.text.timespec import parse_duration
from tui.core.text.untrusted import one_line


def run(ns) -> int:
    if getattr(ns, "adopt", None) is not None:
        return serve_adopted(ns.adopt)
    shell = shell_of(getattr(ns, "shell", None), os.environ.get("SHELL", ""))
    if ns.stop:
        return stop(as_json=ns.json, shell=shell)
    try:
        lifetime = None if ns.lifetime is None else float(parse_duration(str(ns.lifetime)))
    except ValueError:
        lifetime = -1.0
    in_a_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    if lifetime is not None and not 0 < lifetime <= 10 * 365 * 86400:
        err(_("assistant-auth: --lifetime must be a time from 1 s to 10 years: 90, 30m, 1h30m or 2d"))
        return EXIT_ERROR
    in_the_view = ns.foreground and in_a_terminal and not ns.json
    try:
        listener, path = place.listen(at=getattr(ns, "socket", None))
    except place.NoPlace as exc:
        err(one_line(said(exc.args[0]), 2000))
        return EXIT_ERROR
    except place.AlreadyRunning as running:
        return already_running(running.path, ns.json, shell, Policy(bool(ns.confirm), lifetime))
    wizard = bool(ns.confirm and not in_the_view)  # asked in a wizard on this machine: the key proves it is here
    try:
        key: str | None = place.write_answer_key(path)  # every agent's: a program here proves it is here
    except OSError as exc:
        key = None
        if wizard:
            listener.close()
            place.remove(path)
            err(
                _(
                    "assistant-auth: --confirm has no place to ask you: {reason} (the agent did not start). "
                    "Run `assistant-auth agent --foreground --confirm` in a terminal."
                ).format(reason=exc.strerror or exc)
            )
            return EXIT_ERROR
    if wizard:
        err(
            _(
                "assistant-auth agent: before the first token of each new connection it asks in the wizard "
                "(assistant-auth) open on this machine; while none is open, such requests are refused."
            )
        )
    if ns.foreground:
        if in_the_view:  # the lines are shown in the view, not printed under it
            return watch(listener, path, lifetime, ns.confirm, shell_lines(path, os.getpid(), shell), key)
        announce(path, os.getpid(), ns.json, shell)
        return serve(listener, path, lifetime, log=not ns.json, answer_key=key, confirm=wizard)
    return in_the_background(listener, path, lifetime, key, wizard, ns.json, shell)


def in_the_background(
    listener, path: str, lifetime: float | None, key: str | None, wizard: bool, as_json: bool, shell: str
) -> int:
    """The background agent started (`tui.core.agent.server.background`), its lines printed once
    it runs; a start that fails is said and its socket removed."""
    socket_inode, key_inode = place.ownership(path)
    handed = background.Handed(path, key, lifetime, wizard, socket_inode, key_inode)
    try:
        env, changed = background.absolute_paths(os.environ, _here())
        for name, was, now in changed:  # it runs in `/`: said, so a path that surprises is seen
            err(
                _("assistant-auth agent: {name} is a relative path ({was}): the agent reads {now}").format(
                    name=name, was=one_line(was, 300), now=one_line(now, 300)
                )
            )
        pid = background.start(listener, handed, env)
    except background.NotStarted as exc:
        place.remove(path)
        err(one_line(said(exc.args[0]), 2000))
        return EXIT_ERROR
    finally:
        listener.close()
    announce(path, pid, as_json, shell)
    return EXIT_OK


def _here() -> str:
    """This command's directory ("" when it was removed: a relative setting then means nothing)."""
    try:
        return os.getcwd()
    except OSError:
        return ""


def serve_adopted(descriptor: int) -> int:
    """The background agent (`agent --adopt FD`, started by `agent`): the socket it was handed,
    served until stopped. Nothing is printed: its command's shell lines were the start's."""
    try:
        listener, handed = background.adopted(descriptor)
    except background.NotStarted:
        return EXIT_ERROR
    lifecycle.serve(listener, handed.path, handed.lifetime, answer_key=handed.key, confirm=handed.confirm)
    return EXIT_OK


class Policy:
    """What a start of the agent asks for: --confirm and --lifetime, compared with a running one's."""

    def __init__(self, confirm: bool, lifetime: float | None) -> None:
        self.confirm = confirm
        self.lifetime = lifetime

    def differences(self, alive: dict[str, object]) -> str:
        """How the running agent's `ping` differs from this start ("" when it serves this home as
        asked): another home, another --confirm, another --lifetime."""
        home = alive.get("home")
        if not isinstance(home, str) or not same_files(home):
            return _("serves another home ({home})").format(home=one_line(home, 300) if isinstance(home, str) else "?")
        if alive.get("confirm") is not self.confirm:
            return (
                _("runs with --confirm; this start did not ask for it")
                if alive.get("confirm")
                else _("runs without --confirm, which this start asked for")
            )
        running = alive.get("lifetime")
        if (running is None) != (self.lifetime is None) or (running is not None and running != self.lifetime):
            return _("runs with another --lifetime ({running}) than this start asked for ({wanted})").format(
                running=_("none") if running is None else f"{running:g} s",
                wanted=_("none") if self.lifetime is None else f"{self.lifetime:g} s",
            )
        return ""


def already_running(path: str, as_json: bool, shell: str, wanted: Policy) -> int:
    """An agent answers at the path already (the stable one, or `-a PATH`): when it serves this
    home with the policy asked for, its lines, as the first start printed them, and exit 0
    (gpg-agent's way); when it serves another home, or another policy (--confirm, --lifetime),
    a refusal in one line naming it, what differs and how to stop it (exit 2): a policy asked for
    is never dropped without a word. Exit 3 when it does not answer."""
    try:
        alive = ask(Request("ping"), path, timeout=10)
    except AgentUnavailable as exc:
        err(one_line(said(exc.args[0]), 2000))
        return EXIT_TRANSIENT
    pid = alive.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool):
        err(
            _("assistant-auth agent: something answers at {socket}, but not as this program's agent").format(
                socket=path
            )
        )
        return EXIT_TRANSIENT
    differs = wanted.differences(alive)
    if differs:
        err(
            _(
                "assistant-auth agent: the agent at {socket} (pid {pid}) {differs}: it was not changed and no second one "
                "started. Stop it first (ASSISTANT_AUTH_SOCK={socket} assistant-auth agent --stop), then start again."
            ).format(socket=one_line(path, 500), pid=pid, differs=differs)
        )
        return EXIT_ERROR
    err(_("assistant-auth agent: already running at {socket} (pid {pid})").format(socket=one_line(path, 500), pid=pid))
    announce(path, pid, as_json, shell)
    return EXIT_OK


def shell_lines(path: str, pid: int, shell: str = SH) -> list[str]:
    """What points a shell at the agent, as `ssh-agent` prints it (sh, csh or fish)."""
    return [*set_lines(shell, {place.SOCKET_ENV: path, place.PID_ENV: str(pid)}), f"echo Agent pid {pid};"]


def announce(path: str, pid: int, as_json: bool, shell: str = SH) -> None:
    """What points a shell at the agent: its shell lines, or JSON."""
    if as_json:
        out_json({"socket": path, "pid": pid, "socket_env": place.SOCKET_ENV, "pid_env": place.PID_ENV})
        return
    for line in shell_lines(path, pid, shell):
        out(line)


def serve(
    listener, path: str, lifetime: float | None, *, log: bool, answer_key: str | None = None, confirm: bool = False
) -> int:
    """In the foreground until stopped (`lifecycle.serve`), one line per event when `log`."""
    lifecycle.serve(
        listener, path, lifetime, on_event=said_event if log else None, answer_key=answer_key, confirm=confirm
    )
    return EXIT_OK


def watch(
    listener,
    path: str,
    lifetime: float | None,
    confirm: bool = False,
    lines: list[str] | None = None,
    answer_key: str | None = None,
) -> int:
    """In a terminal: the live view, the agent on its event loop (`tui.app.agent_app`)."""
    from tui.app.agent_app import AgentApp  # lazy: Textual, for the app alone

    try:
        AgentApp(listener, path, lifetime, confirm, lines, answer_key).run()
    finally:
        place.remove(path)
    return EXIT_OK


def said_event(event: Event) -> None:
    """One line for a foreground agent's log: when, which connection, what, which slot, how it
    ended. Never a token."""
    err(event_line(dataclasses.asdict(event)))


def stop(as_json: bool = False, shell: str = SH) -> int:
    """End the running agent: through its socket (it finishes what is in flight), else by its pid
    when that process is this program's agent (the socket gone, or never set)."""
    path = socket_path() or ""
    pid_text = os.environ.get(place.PID_ENV, "")
    pid = int(pid_text) if pid_text.isdigit() and 0 < int(pid_text) < 1 << 22 else None
    unreachable = ""
    if path:
        try:
            answer = ask(Request("stop"), path, timeout=30)
        except AgentUnavailable as exc:
            unreachable = one_line(said(exc.args[0]), 2000)
        else:
            if answer.get("ok") is not True:  # a forwarded socket: an agent is stopped on its own machine
                err(one_line(answer.get("error") or _("the agent refused to stop"), 1000))
                return EXIT_ERROR
            return _stopped(pid_text, as_json, shell)
    if pid is None:
        if unreachable:
            err(unreachable)
            return EXIT_TRANSIENT
        err(
            _("assistant-auth: no agent to stop ({socket} and {pid} are not set)").format(
                socket=place.SOCKET_ENV, pid=place.PID_ENV
            )
        )
        return EXIT_ERROR
    if not this_program(pid, "agent"):
        if unreachable:
            err(unreachable)
        if alive(pid) and process(pid) is None:  # the system does not say which program it is
            err(
                _(
                    "assistant-auth: this system does not say which program process {pid} ({variable}) is: nothing "
                    "was stopped. If it is your agent, stop it with: kill {pid}"
                ).format(pid=pid, variable=place.PID_ENV)
            )
            return EXIT_ERROR
        err(
            _("assistant-auth: process {pid} ({variable}) is not this program's agent: nothing was stopped").format(
                pid=pid, variable=place.PID_ENV
            )
        )
        return EXIT_ERROR
    if unreachable:
        err(
            _(
                "assistant-auth: the agent's socket {socket} does not answer; stopping the agent by its pid {pid}"
            ).format(socket=one_line(path, 500), pid=pid)
        )
    try:
        os.kill(pid, signal.SIGTERM)  # it stops as on --stop: what is in flight is finished first
    except OSError as exc:
        err(_("assistant-auth: cannot stop process {pid}: {reason}").format(pid=pid, reason=exc.strerror or exc))
        return EXIT_TRANSIENT
    return _stopped(pid_text, as_json, shell)


def _stopped(pid_text: str, as_json: bool, shell: str = SH) -> int:
    if as_json:
        out_json({"stopped": True})
    else:
        for line in unset_lines(shell, [place.SOCKET_ENV, place.PID_ENV]):
            out(line)
        out(f"echo Agent pid {pid_text if pid_text.isdigit() else '?'} killed;")
    return EXIT_OK
