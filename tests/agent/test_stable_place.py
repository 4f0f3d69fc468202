"""One agent a person finds from everywhere: at `$XDG_RUNTIME_DIR/assistant-auth/agent.sock` when
that directory is private, or where `-a PATH` says; a second `agent` finds it running and prints
its lines (exit 0); a killed agent's socket is replaced; anything else at the path is refused and
left alone; the user service (no terminal) binds the same path; agents started at once never
remove each other's socket."""

from __future__ import annotations

import concurrent.futures
import json
import os
import pathlib
import signal
import stat
import subprocess
import tempfile

from tests.agent.conftest import alive
from tests.cli.test_cli import SCRIPT
from tests.commands import run_command
from tests.conftest import default_signals, terminate
from tests.waiting import PATIENCE, until
from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.server import place
from tui.core.agent.wire.protocol import Request


def agent_json(*args: str) -> tuple[subprocess.CompletedProcess, dict | None]:
    done = run_command(["agent", "--json", *args], timeout=PATIENCE)
    try:
        return done, json.loads(done.stdout)
    except ValueError:
        return done, None


def answers(path: str) -> bool:
    try:
        return ask(Request("ping"), path, timeout=5)["ok"] is True
    except AgentUnavailable:
        return False


def test_the_stable_path_and_a_second_start_that_finds_it_running(runtime):
    where, started = runtime
    first, found = agent_json()
    assert first.returncode == 0 and found is not None, first.stderr
    started.append(found["pid"])
    assert found["socket"] == place.stable_path()  # this home's (tests use a home of their own: agent-<hash>.sock)
    assert os.path.dirname(found["socket"]) == str(where / "assistant-auth")
    assert stat.S_IMODE(os.stat(where / "assistant-auth").st_mode) == 0o700
    again, same = agent_json()
    assert again.returncode == 0 and same == found  # the same agent, its lines again
    assert "already running at" in again.stderr
    lines = run_command(["agent", "-s"], timeout=PATIENCE)
    assert lines.returncode == 0 and f"ASSISTANT_AUTH_AGENT_PID={found['pid']};" in lines.stdout


def test_a_killed_agents_socket_is_replaced(runtime):
    _where, started = runtime
    _done, first = agent_json()
    os.kill(first["pid"], signal.SIGKILL)
    until(lambda: not alive(first["pid"]))
    assert os.path.exists(first["socket"]) and not answers(first["socket"])  # a dead socket left behind
    done, second = agent_json()
    assert done.returncode == 0 and second["socket"] == first["socket"] and second["pid"] != first["pid"]
    started.append(second["pid"])
    assert answers(second["socket"])


def test_dash_a_binds_where_it_is_told_and_refuses_what_is_not_a_socket(runtime, tmp_path):
    _where, started = runtime
    place = pathlib.Path(tempfile.mkdtemp(prefix="aa-a-")) / "my.sock"
    try:
        done, found = agent_json("-a", str(place))
        assert done.returncode == 0 and found["socket"] == str(place), done.stderr
        started.append(found["pid"])
        assert stat.S_IMODE(os.lstat(place).st_mode) == 0o600 and answers(str(place))
        plain = place.with_name("file")
        plain.write_text("mine")
        refused, _ = agent_json("--socket", str(plain))
        assert refused.returncode == 2 and "something else is there" in refused.stderr
        assert plain.read_text() == "mine"  # left alone
    finally:
        os.kill(found["pid"], signal.SIGTERM)
        until(lambda: not place.exists())
        subprocess.run(["rm", "-rf", str(place.parent)], check=False)


def test_a_runtime_directory_that_is_not_private_is_no_stable_place(runtime):
    where, started = runtime
    os.chmod(where, 0o755)
    done, found = agent_json()
    assert done.returncode == 0
    started.append(found["pid"])
    assert not found["socket"].startswith(str(where))  # a new private directory instead


def test_the_user_service_without_a_terminal_binds_the_stable_path(runtime):
    """As a systemd user unit runs it: `agent --foreground`, no terminal, its own session."""
    where, _started = runtime
    service = subprocess.Popen(
        [SCRIPT, "agent", "--foreground"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_signals,
    )
    path = place.stable_path()
    assert path is not None and os.path.dirname(path) == str(where / "assistant-auth")
    try:
        until(lambda: answers(path) or service.poll() is not None)
        assert service.poll() is None and answers(path)
        shell = run_command(["agent", "--json"], timeout=PATIENCE)
        assert json.loads(shell.stdout)["socket"] == path  # a login shell finds the service's agent
    finally:
        terminate(service)
    assert not os.path.exists(path)


def test_agents_started_at_once_leave_one_running(runtime):
    _where, started = runtime
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _n: agent_json(), range(4)))
    pids = {found["pid"] for done, found in results if found is not None}
    assert all(done.returncode == 0 for done, _found in results) and len(pids) == 1
    started.extend(pids)
    assert sum("already running" in done.stderr for done, _found in results) == 3
    (pid,) = pids
    until(lambda: answers(results[0][1]["socket"]))
    assert alive(pid)
