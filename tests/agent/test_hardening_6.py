"""Hardening round 6 on one machine: what a hostile program at `ASSISTANT_AUTH_SOCK` can make our
clients show or wait for, what a client can make the agent refresh, where the socket can live,
and what `--stop` reaches. (Through a real sshd: `test_forwarded_policy.py`.)"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import signal
import socket
import subprocess
import tempfile
import threading
import time

import pytest
from hypothesis import given, settings, strategies as st

from tests.agent.conftest import RunningAgent, on_server, run_on_server
from tests.agent.fake_agent import FakeAgent, line
from tests.app.helpers import screen_name, screen_text, wait_for
from tests.cli.test_cli import SCRIPT, valid
from tests.commands import run_command
from tests.conftest import default_signals, read_json, terminate, write_creds
from tests.waiting import PATIENCE, until
from tui.app.agent_app import AgentApp
from tui.app.screens.ask import asked_line
from tui.cli import main
from tui.core.agent.client import proof
from tui.core.agent.client.answering import _message
from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.client.presence import agent_line
from tui.core.agent.feed import RemoteFeed
from tui.core.agent.server import place
from tui.core.agent.server.policy import Access, access, local_roots, without_local_paths
from tui.core.agent.view import connection_lines, event_line, header, slot_lines
from tui.core.agent.wire import naming
from tui.core.agent.wire.protocol import Request, parse_request
from tui.core.slots.selector import Selector
from tui.core.text.untrusted import is_one_printable_line
from tui.demo.server import TOKEN_PATH

HOSTILE = "x\n* FORGED-SLOT: valid, signed in as mallory\r\x1b[2J\x1b]0;owned\x07\u202eevil\u2028"


def socket_in(tmp_path: pathlib.Path, name: str = "fake.sock") -> str:
    where = pathlib.Path(f"/tmp/aa-test-{os.getpid()}-{threading.get_ident() % 10000}-{time.monotonic_ns() % 10**6}")
    where.mkdir(mode=0o700)
    return str(where / name)


# -- 1. the policy, as a table ---------------------------------------------------------------------


@pytest.mark.parametrize("op", ["token", "ping", "status", "events", "stop"])
@pytest.mark.parametrize("origin", ["local", "forwarded"])
@pytest.mark.parametrize("confirm", [False, True])
@pytest.mark.parametrize("allowed", [False, True])
def test_the_policy_table(op, origin, confirm, allowed):
    verdict = access(op, origin, confirm=confirm, allowed=allowed)
    if op == "stop" and origin == "forwarded":
        assert verdict is Access.REFUSE  # whatever the person allowed: --stop belongs to their machine
    elif op in ("token", "status", "events") and confirm and not allowed:
        assert verdict is Access.ASK
    else:
        assert verdict is Access.SERVE


def test_forwarded_answers_name_no_path_of_the_agents_machine(monkeypatch, tmp_path):
    home = os.path.expanduser("~")
    monkeypatch.setenv("ASSISTANT_CODE_HOME", str(tmp_path / "assistant"))
    roots = local_roots(str(tmp_path / "sockdir" / "agent.1"))
    said = json.dumps(
        {
            "v": 1,
            "ok": False,
            "error": f"credentials not found at {tmp_path}/assistant/credentials/x.json",
            "hint": f"see {home}/notes and {tmp_path}/sockdir/agent.1",
            "access_token": f"{home}-kept",
        }
    ).encode()
    cleaned = json.loads(without_local_paths(said + b"\n", roots))
    assert str(tmp_path) not in cleaned["error"] + cleaned["hint"] and home + "/" not in cleaned["hint"]
    assert cleaned["error"] == "credentials not found at …/credentials/x.json"
    assert cleaned["hint"] == "see ~/notes and …/agent.1"
    assert cleaned["access_token"] == f"{home}-kept"  # a token is never changed


def test_a_key_on_any_request_is_parsed_and_bounded():
    assert parse_request(b'{"v":1,"op":"status","key":"abc"}').key == "abc"
    for bad in (b'{"v":1,"op":"status","key":5}', b'{"v":1,"op":"status","key":"' + b"k" * 65 + b'"}'):
        with pytest.raises(ValueError):
            parse_request(bad)


def test_under_confirm_status_and_events_are_asked_and_ping_is_not(laptop, server, tmp_path):
    """A connection nobody allowed (no wizard open to ask): ping answers, with nothing of who or
    where; status and events are refused like a token; the wizard's key makes a connection the
    person's own."""
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy(), "--confirm")
    try:
        alive = ask(Request("ping"), agent.path)
        assert alive["ok"] is True and alive["alive"] is True
        assert set(alive) <= {
            "v",
            "ok",
            "alive",
            "asked_from",
            "pid",
            "home",
            "confirm",
            "lifetime",
        }  # this machine only
        for op in ("status", "events", "token"):  # a connection that does not show the key (a server's)
            refused = ask(Request(op, key="0" * 32), agent.path)
            assert refused["ok"] is False and "no wizard is open" in refused["error"], op
        key = proof.read_answer_key(agent.path)
        served = ask(Request("status", key=key), agent.path)
        assert served["ok"] is True and served["slots"]
        wrong = ask(Request("status", key="0" * 32), agent.path)
        assert wrong["ok"] is False
    finally:
        agent.stop()


# -- 3. every value an agent sends is one printable line ---------------------------------------------

TOKEN = {"v": 1, "ok": True, "access_token": "tok-abc", "expires_at": 4102444800, "slot": "s", "region": "cn"}
TOKEN["identity"] = "ada"
FAILURE = {"v": 1, "ok": False, "error": "e", "hint": "h", "exit": 1, "retry_after": 5}
SLOT = {"name": "assistant-code", "state": "valid", "usable": True, "refresh_rejected": False}
SLOT.update(has_refresh_token=True, expires_at=4102444800, identity="ada", region="cn")
STATUS = {"v": 1, "ok": True, "pid": 1, "started": 1, "default": "assistant-code", "slots": [SLOT]}
EVENTS = {"v": 1, "ok": True, "socket": "/s", "pid": 1, "started": 1, "lifetime": 60}
EVENTS["connections"] = [{"number": 1, "origin": "local", "opened": 1, "requests": 1}]
EVENTS["events"] = [{"at": 1, "connection": 1, "kind": "request", "origin": "local", "op": "token", "slot": "s"}]
PING = {"v": 1, "ok": True, "alive": True, "asked_from": "local", "pid": 1}


def variants(answer: dict) -> list[tuple[str, dict]]:
    """The answer once as it is and once for each field (nested ones too) set to HOSTILE."""
    found = [("as is", answer)]
    for name, value in answer.items():
        if name in ("v", "ok"):
            continue
        if isinstance(value, list):
            for inner in value[0]:
                changed = dict(value[0], **{inner: HOSTILE})
                found.append((f"{name}.{inner}", dict(answer, **{name: [changed]})))
        found.append((name, dict(answer, **{name: HOSTILE})))
    return found


def all_variants() -> list[tuple[str, str, dict]]:
    kinds = {"token": TOKEN, "failure": FAILURE, "status": STATUS, "events": EVENTS, "ping": PING}
    return [(kind, where, changed) for kind, answer in kinds.items() for where, changed in variants(answer)]


def shown_lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


@pytest.fixture
def fake_answers(tmp_path, monkeypatch):
    holder: dict = {}

    def answer(request: dict) -> bytes:
        op = request.get("op")
        data = holder["answer"]
        if op in ("token", "stop") and data.get("ok") is False:
            return line(data)
        return line(data)

    where = socket_in(tmp_path)
    fake = FakeAgent(where, answer)
    monkeypatch.setenv("ASSISTANT_AUTH_SOCK", where)
    monkeypatch.setenv("ASSISTANT_LANG", "en")
    try:
        yield holder, where
    finally:
        fake.close()
        os.rmdir(os.path.dirname(where))


COMMANDS = [
    ["status"],
    ["status", "--json"],
    ["token"],
    ["token", "--json"],
    ["relay", "--once"],
    ["agent", "--stop"],
]


def test_every_field_of_every_answer_kind_reaches_a_person_as_one_printable_line(
    fake_answers, capsys, home, monkeypatch
):
    holder, where = fake_answers
    monkeypatch.delenv("ASSISTANT_AUTH_AGENT_PID", raising=False)
    checked = 0
    for kind, field, answer in all_variants():
        holder["answer"] = answer
        for command in COMMANDS:
            code = main(list(command))
            said = capsys.readouterr()
            context = f"{kind}.{field} → {' '.join(command)}"
            assert code in (0, 1, 2, 3), context
            for text in (said.out, said.err):
                for shown in shown_lines(text):
                    assert is_one_printable_line(shown), (context, shown)
                    assert not shown.lstrip().startswith("* FORGED"), (context, shown)
            assert "Traceback" not in said.err, context
            checked += 1
        # the wizard's faces: Home's line and the agent's view read the same answers
        assert is_one_printable_line(agent_line()), kind  # the variable names `where`
        try:
            snapshot = RemoteFeed(where).snapshot()
        except AgentUnavailable:
            continue
        for shown in [header(snapshot), *slot_lines(snapshot), *connection_lines(snapshot)]:
            assert is_one_printable_line(shown), (kind, field, shown)
        for event in snapshot.events:
            assert is_one_printable_line(event_line(event)), (kind, field)
    assert checked > 150


def test_exec_says_a_hostile_refusal_as_one_line(fake_answers, home):
    """`exec` replaces its process, so it runs as one: every field of a refusal hostile."""
    holder, where = fake_answers
    for field, answer in variants(FAILURE):
        holder["answer"] = answer
        env = {**os.environ, "ASSISTANT_AUTH_SOCK": where, "ASSISTANT_LANG": "en"}
        done = run_command(["exec", "--", "true"], env=env)
        assert done.returncode in (1, 2, 3) and "Traceback" not in done.stderr, field
        assert all(is_one_printable_line(shown) for shown in shown_lines(done.stderr)), (field, done.stderr)
        assert not any(shown.startswith("* FORGED") for shown in shown_lines(done.stderr))


@pytest.mark.parametrize("field", ["asked_for", "op", "origin", "connection", "question"])
def test_a_hostile_question_is_one_printable_line_in_the_wizard(field):
    question = {"v": 1, "question": 7, "connection": 3, "origin": "forwarded", "op": "token", "asked_for": "region x"}
    parsed = _message(line(dict(question, **{field: HOSTILE})))
    if parsed is None:  # a number that is not one: no question at all
        assert field in ("connection", "question")
        return
    shown = asked_line(parsed.connection, "here", parsed.asked_for, parsed.op)
    assert is_one_printable_line(shown) and parsed.op in ("token", "status", "events")


async def test_the_foreground_views_question_shows_a_hostile_request_as_one_line(laptop, server):
    write_creds(laptop, valid(server))
    listener, path = place.listen()
    app = AgentApp(listener, path, None, confirm=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Token agent, pid" in screen_text(app))
        hostile = Request("token", Selector(region=HOSTILE[:200]))
        asked = asyncio.ensure_future(asyncio.to_thread(ask, hostile, path))
        await wait_for(pilot, lambda: screen_name(app) == "AskScreen")
        text = screen_text(app)
        assert not any(row.strip().startswith("* FORGED") for row in text.splitlines())
        assert "\x1b" not in text and "\u202e" not in text
        await pilot.press("d")
        assert (await asked)["ok"] is False
        await wait_for(pilot, lambda: screen_name(app) == "ForegroundAgentScreen")
        await wait_for(pilot, lambda: "denied" in screen_text(app))
        assert not any(row.strip().startswith("* FORGED") for row in screen_text(app).splitlines())
        await pilot.press("s")
        await wait_for(pilot, lambda: not os.path.exists(path))


# -- 4. socket paths that cannot exist -------------------------------------------------------------


def test_a_base_too_long_for_a_socket_is_passed_over_or_said(tmp_path):
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    with pytest.raises(place.NoPlace) as said:
        place.listen(str(deep))
    text = str(said.value)
    assert "bytes" in text and "TMPDIR" in text and str(naming.SUN_PATH) in text
    assert list(deep.iterdir()) == []  # nothing was made there


@pytest.mark.parametrize("variable", ["TMPDIR", "XDG_RUNTIME_DIR"])
def test_agent_with_a_long_tmpdir_binds_under_a_short_base(tmp_path, home, variable):
    deep = tmp_path / ("d" * 120)
    deep.mkdir(mode=0o700)
    env = {**os.environ, variable: str(deep)}
    done = run_command(["agent", "--json"], env=env, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    started = json.loads(done.stdout)
    try:
        assert naming.fits(started["socket"]) and not started["socket"].startswith(str(deep))
        assert ask(Request("ping"), started["socket"])["ok"] is True
    finally:
        os.kill(started["pid"], signal.SIGTERM)
        until(lambda: not os.path.exists(started["socket"]))


def test_agent_with_no_base_that_fits_says_so_and_starts_nothing(tmp_path, home, monkeypatch, capsys):
    deep = str(tmp_path / ("d" * 120))
    monkeypatch.setattr(place, "_bases", lambda: [deep])
    for args in (["agent", "--json"], ["agent", "--foreground", "--json"]):
        assert main(args) == 2
        said = capsys.readouterr()
        assert "no directory can hold the agent's socket" in said.err and "TMPDIR" in said.err
        assert "unexpected error" not in said.err and said.out == ""


def test_ssh_with_no_base_that_fits_says_so(tmp_path, home, monkeypatch, capsys):
    monkeypatch.setattr(place, "_bases", lambda: [str(tmp_path / ("d" * 120))])
    monkeypatch.delenv("ASSISTANT_AUTH_SOCK", raising=False)
    assert main(["ssh", "nowhere.invalid"]) == 2
    said = capsys.readouterr().err
    assert "no directory can hold the agent's socket" in said and "unexpected error" not in said


# -- 5. every wait on the socket has a whole deadline -----------------------------------------------


def test_a_trickling_peer_cannot_hold_an_answer_past_its_bound(tmp_path):
    where = socket_in(tmp_path)
    fake = FakeAgent(where, trickle=0.1)  # a byte every 0.1 s, never a newline
    ended: list[object] = []

    def asking() -> None:
        try:
            ask(Request("token"), where, timeout=1.5, stall=1.0)
        except AgentUnavailable as exc:
            ended.append(exc)

    worker = threading.Thread(target=asking, daemon=True)
    try:
        worker.start()
        worker.join(PATIENCE)
        assert not worker.is_alive()  # before: each byte restarted the wait, and it never ended
        assert len(ended) == 1 and "did not answer in time" in str(ended[0])
    finally:
        fake.close()
        os.rmdir(os.path.dirname(where))


def test_the_relay_ends_at_once_on_sigterm_while_a_peer_trickles(tmp_path, home):
    where = socket_in(tmp_path)
    fake = FakeAgent(where, trickle=0.5)
    env = {**os.environ, "ASSISTANT_AUTH_SOCK": where, "ASSISTANT_LANG": "en"}
    relay = subprocess.Popen([SCRIPT, "relay"], env=env, stderr=subprocess.PIPE, text=True, preexec_fn=default_signals)
    try:
        assert fake.asked.wait(PATIENCE)  # its request is in, and the answer trickles
        relay.send_signal(signal.SIGTERM)
        code = relay.wait(PATIENCE)  # before: it waited out the 90 s bound, then the next
        stderr = relay.stderr.read()
        assert code == 0 and "Traceback" not in stderr, stderr
    finally:
        terminate(relay)
        fake.close()
        os.rmdir(os.path.dirname(where))


# -- 6. no client drives the person's refresh traffic -----------------------------------------------


def test_a_client_asking_as_fast_as_it_can_makes_one_refresh(laptop, server, agent):
    server.access_ttl = 3600  # tokens of an hour, as the service gives them
    write_creds(laptop, valid(server))  # 10 minutes left
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(agent.path)
    reader = conn.makefile("rb")
    answers = []
    deadline = time.monotonic() + PATIENCE

    def spaced(said: dict) -> bool:
        return said["ok"] is False and "retry_after" in said

    try:  # as fast as it can, until a fresh token is short of 3598 s and the spacing has answered many times
        while sum(1 for said in answers if spaced(said)) < 100 and time.monotonic() < deadline:
            conn.sendall(Request("token", min_ttl=3598).to_line())
            while True:
                said = json.loads(reader.readline())
                if "working" not in said:
                    answers.append(said)
                    break
    finally:
        conn.close()
    assert server.count(TOKEN_PATH, "refresh_token") == 1  # before: a refresh on nearly every request
    refused = [said for said in answers if spaced(said)]
    assert len(refused) == 100 and all(said["ok"] or said["exit"] == 2 for said in answers)
    assert all(0 < said["retry_after"] <= 1800 and "cannot be met" in said["error"] for said in refused)
    # a lifetime the fresh token meets is served as before, without another refresh
    served = ask(Request("token", min_ttl=1800), agent.path)
    assert served["ok"] is True and server.count(TOKEN_PATH, "refresh_token") == 1


def test_token_says_the_spacing_and_exits_2(laptop, server, agent, server_home):
    server.access_ttl = 3600
    write_creds(laptop, valid(server))
    env = on_server(agent.path, server_home)
    assert run_on_server(env, "token", "--min-ttl", "3598").returncode == 0
    until(lambda: read_json(laptop / "credentials" / "assistant-code.json")["expires_at"] - time.time() < 3598)
    again = run_on_server(env, "token", "--min-ttl", "3598")
    assert again.returncode == 2 and "at most once in half a token's lifetime" in again.stderr
    assert server.count(TOKEN_PATH, "refresh_token") == 1


# -- 7. --stop reaches the agent it promises to reach ---------------------------------------------


def started_in_background(env: dict) -> dict:
    done = run_command(["agent", "--json"], env=env, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1].startswith("Z")
    except OSError:
        return True


def test_stop_uses_the_pid_when_the_socket_was_removed(home):
    started = started_in_background(os.environ.copy())
    os.unlink(started["socket"])  # a /tmp cleaner
    env = {**os.environ, "ASSISTANT_AUTH_SOCK": started["socket"], "ASSISTANT_AUTH_AGENT_PID": str(started["pid"])}
    done = run_command(["agent", "--stop"], env=env, timeout=PATIENCE)
    try:
        assert done.returncode == 0, done.stderr
        assert "does not answer; stopping the agent by its pid" in done.stderr and "unset" in done.stdout
        until(lambda: gone(started["pid"]))
    finally:
        if not gone(started["pid"]):
            os.kill(started["pid"], signal.SIGKILL)


def test_stop_never_signals_a_pid_that_is_now_another_program(home):
    other = subprocess.Popen(["sleep", "600"], preexec_fn=default_signals)
    try:
        for socket_set in (True, False):
            env = {**os.environ, "ASSISTANT_AUTH_AGENT_PID": str(other.pid), "ASSISTANT_LANG": "en"}
            env.pop("ASSISTANT_AUTH_SOCK", None)
            if socket_set:
                env["ASSISTANT_AUTH_SOCK"] = "/nonexistent/agent.1"
            done = run_command(["agent", "--stop"], env=env)
            assert done.returncode == 2 and "is not this program's agent" in done.stderr
            assert other.poll() is None  # still running
    finally:
        terminate(other)


def test_stop_through_the_agents_socket_is_refused_for_a_forwarded_connection_only(laptop, agent):
    """Locally `stop` still works (the forwarded case is in test_forwarded_policy)."""
    assert ask(Request("stop"), agent.path)["ok"] is True
    assert agent.process.wait(PATIENCE) == 0


def test_an_agent_of_an_earlier_version_still_counts_as_answering(tmp_path):
    """`ping` is new: an earlier agent refuses it as an unknown operation, and `ssh` must not take
    that for an agent that does not answer (it would start one of its own and say so)."""
    from tui.cli.agent.ssh import _answers

    where = socket_in(tmp_path)
    earlier = FakeAgent(where, lambda _request: line({"v": 1, "ok": False, "error": "bad request", "exit": 2}))
    try:
        assert _answers(where) is True
    finally:
        earlier.close()
        os.rmdir(os.path.dirname(where))
    assert _answers(where) is False  # and nothing there: does not answer


ROOTS = [("/home/ada/.cfg", "…"), ("/run/user/1000/aa-x", "…"), ("/home/ada", "~")]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet=st.sampled_from("/home/ada.cfgrun-x1 é\n")),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet=st.sampled_from("/home/ada.cfg x"), max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values, st.text(alphabet=st.sampled_from("/home/ada.cfg x"), max_size=40))
def test_no_forwarded_answer_names_a_root_whatever_it_holds(value, token):
    """Whatever an answer holds, wherever a path of the agent's machine stands in it, the forwarded
    answer names none of the roots; the access token alone is kept as it is."""
    answer = {"v": 1, "ok": True, "payload": value, "access_token": token}
    cleaned = json.loads(without_local_paths(json.dumps(answer).encode() + b"\n", ROOTS))
    assert cleaned["access_token"] == token

    def strings(item):
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            for inner in item:
                yield from strings(inner)
        elif isinstance(item, dict):
            for name, inner in item.items():
                yield name
                if name != "access_token":
                    yield from strings(inner)

    assert not any("/home/ada" in text for text in strings(cleaned))


# -- the wrong kind of file at the names this round added -------------------------------------------


def test_a_fifo_beside_a_dead_socket_never_holds_token(tmp_path, home):
    """`<socket>.ended` (the word a --lifetime leaves) as a FIFO: `token` still ends at once, exit 3
    (it hung on the FIFO's open)."""
    where = socket_in(tmp_path)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(where)
    dead.close()  # a socket nobody listens on
    os.mkfifo(where + ".ended")
    try:
        env = {**os.environ, "ASSISTANT_AUTH_SOCK": where, "ASSISTANT_LANG": "en"}
        done = run_command(["token"], env=env, timeout=PATIENCE)
        assert done.returncode == 3 and "stopped or killed" in done.stderr
    finally:
        for name in (where, where + ".ended"):
            os.unlink(name)
        os.rmdir(os.path.dirname(where))


def test_an_agent_whose_lifetime_ends_with_a_fifo_at_its_word_still_ends(home, tmp_path):
    where = socket_in(tmp_path, "agent.sock")
    agent = subprocess.Popen(
        [SCRIPT, "agent", "--foreground", "--json", "-a", where, "--lifetime", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    try:
        assert json.loads(agent.stdout.readline())["socket"] == where
        os.mkfifo(where + ".ended")  # after it bound (binding clears an earlier word)
        assert agent.wait(PATIENCE) == 0  # it hung opening the FIFO to write its word
    finally:
        terminate(agent)
        for name in (where + ".ended", where + ".lock"):
            if os.path.lexists(name):
                os.unlink(name)
        os.rmdir(os.path.dirname(where))


def test_relay_notes_of_the_wrong_kind_are_no_relay(home, monkeypatch):
    from tui.core.agent.client import forwarded

    registered = pathlib.Path(forwarded.directory())
    registered.mkdir(parents=True, mode=0o700)
    os.mkfifo(registered / "relay-fifo.pid")
    (registered / "ours.txt").write_text(str(os.getpid()))
    (registered / "relay-link.pid").symlink_to(registered / "ours.txt")
    (registered / "relay-huge.pid").write_text("9" * 100)
    found: list = []
    worker = threading.Thread(target=lambda: found.append(forwarded.relays_running()), daemon=True)
    worker.start()
    worker.join(PATIENCE)
    assert not worker.is_alive() and found == [[]]  # no hang on the FIFO, no link followed
    assert forwarded.relay_started("fifo") is None  # a FIFO at the note's name: not written, not waited on


def test_a_registration_that_leads_nowhere_of_ours_is_not_followed(home, tmp_path):
    from tui.core.agent.client import forwarded

    registered = pathlib.Path(forwarded.directory())
    registered.mkdir(parents=True, mode=0o700)
    live = socket.socket(socket.AF_UNIX)
    live.bind(str(tmp_path / "live.sock"))
    try:
        (registered / "relative.sock").symlink_to(os.path.relpath(tmp_path / "live.sock", registered))
        (registered / "absolute.sock").symlink_to(tmp_path / "live.sock")
        (registered / "plain.sock").write_text("not a link")
        assert forwarded.candidates("/nowhere") == [str(tmp_path / "live.sock")]
    finally:
        live.close()


def test_a_file_where_the_stable_directory_goes_is_said(home, tmp_path, monkeypatch, capsys):
    runtime = pathlib.Path(tempfile.mkdtemp(prefix="aa-rt-"))
    os.chmod(runtime, 0o700)
    (runtime / "assistant-auth").write_text("not a directory")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    try:
        assert main(["agent", "--json"]) == 2
        said = capsys.readouterr().err
        assert "cannot listen at" in said and "unexpected error" not in said
        assert (runtime / "assistant-auth").read_text() == "not a directory"
    finally:
        subprocess.run(["rm", "-rf", str(runtime)], check=False)
