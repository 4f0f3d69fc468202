"""`agent --confirm` answered in a wizard on the agent's machine: the wizard proves it is there
with the key in the agent's private directory; questions go to it and its answers decide; a
question it leaves unanswered is withdrawn and denied; a connection without the key (a server's,
through the forwarded socket) cannot answer."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading

import pytest

from tests.agent.conftest import RunningAgent, on_server, run_on_server
from tests.app.helpers import screen_name, screen_text, wait_for
from tests.cli.test_cli import valid
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core.agent.client import proof
from tui.core.agent.client.answering import Question, Withdrawn, offer
from tui.core.agent.client.ask import ask
from tui.core.agent.server.agent import Agent, place
from tui.core.agent.server.confirm import ALLOW_CONNECTION, DENY
from tui.core.agent.wire import naming
from tui.core.agent.wire.protocol import Request, parse_answer, parse_request
from tui.core.slots.selector import Selector


def read_line(conn: socket.socket) -> dict:
    """The next answer on `conn`, after any `working` lines (a request waits for the person)."""
    data = b""
    while True:
        while b"\n" not in data:
            chunk = conn.recv(65536)
            assert chunk, "the agent closed the connection"
            data += chunk
        line, _newline, data = data.partition(b"\n")
        said = json.loads(line)
        if "working" not in said:
            assert data == b"", "one answer per request"
            return said


def answer_each(answering, decision: str, seen: list) -> threading.Thread:
    """A stand-in for the person at the wizard: answers every question with `decision`."""

    def run() -> None:
        while True:
            message = answering.next()
            if message is None:
                return
            seen.append(message)
            if isinstance(message, Question):
                answering.answer(message.number, decision)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def confirming(laptop, server):
    write_creds(laptop, valid(server))
    running = RunningAgent(os.environ.copy(), "--confirm")
    try:
        yield running
    finally:
        running.stop()


def test_the_wizard_answers_allow_this_connection(confirming, server):
    answering = offer(confirming.path)
    assert answering is not None
    seen: list = []
    answer_each(answering, ALLOW_CONNECTION, seen)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(confirming.path)
    try:
        for _ in range(2):
            conn.sendall(Request("token", Selector(region="cn")).to_line())
            assert read_line(conn)["access_token"] == server.issued[-1][0]
    finally:
        conn.close()
        answering.close()
    questions = [message for message in seen if isinstance(message, Question)]
    assert len(questions) == 1 and questions[0].asked_for == "region cn"  # the connection was allowed once
    assert questions[0].origin == "local"


def test_a_wizard_that_denies_refuses_the_request(confirming, tmp_path):
    answering = offer(confirming.path)
    assert answering is not None
    answer_each(answering, DENY, [])
    try:
        done = run_on_server(on_server(confirming.path, tmp_path / "server-home"), "token")
    finally:
        answering.close()
    assert done.returncode == 1 and "denied at your own machine" in done.stderr


def test_a_wizard_that_goes_away_denies_its_open_question(confirming, tmp_path):
    answering = offer(confirming.path)
    assert answering is not None
    asked = threading.Event()

    def leave_at_the_question() -> None:
        if isinstance(answering.next(), Question):
            asked.set()
            answering.close()

    threading.Thread(target=leave_at_the_question, daemon=True).start()
    done = run_on_server(on_server(confirming.path, tmp_path / "server-home"), "token")
    assert asked.is_set() and done.returncode == 1 and "did not allow" in done.stderr


@pytest.mark.parametrize("key", ["0" * 32, "not-a-key", "a" * 64])
def test_without_the_key_a_connection_cannot_answer(confirming, key):
    """What a process on a server could send through the forwarded socket: any key but the one in
    the agent's private directory is refused, and the connection carries no questions."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(confirming.path)
    try:
        conn.sendall(Request("answerer", key=key).to_line())
        said = read_line(conn)
        assert said["ok"] is False and "cannot answer for the agent" in said["error"]
        assert conn.recv(10) == b""  # closed
    finally:
        conn.close()


def test_a_plain_agent_takes_no_answers_and_odd_keys_are_no_keys(laptop, server, tmp_path):
    """An agent that does not ask takes no answers: a wizard offers nothing, though it has a key
    (every agent's: the local proof); and a key file that is a link, readable by others, a FIFO, a
    directory or huge is not a key."""
    write_creds(laptop, valid(server))
    plain = RunningAgent(os.environ.copy())
    try:
        key = naming.key_of(plain.path)
        assert proof.read_answer_key(plain.path) is not None  # the local proof is there
        assert offer(plain.path) is None  # and answering is refused: it asks nobody
        os.unlink(key)
        os.symlink(str(tmp_path / "elsewhere"), key)
        (tmp_path / "elsewhere").write_text("a" * 32)
        assert proof.read_answer_key(plain.path) is None
        os.unlink(key)
        with open(key, "w") as handle:
            handle.write("a" * 32)
        os.chmod(key, 0o644)
        assert proof.read_answer_key(plain.path) is None
        os.unlink(key)
        os.mkfifo(key, 0o600)  # never waited on: opened without blocking, then not a regular file
        assert proof.read_answer_key(plain.path) is None
        os.unlink(key)
        os.mkdir(key, 0o700)
        assert proof.read_answer_key(plain.path) is None
        os.rmdir(key)
        with open(key, "w") as handle:
            handle.write("a" * 10_000_000)  # huge: only the key's length is read, and it is no key
        os.chmod(key, 0o600)
        assert proof.read_answer_key(plain.path) is None
    finally:
        plain.stop()


def test_protocol_lines_of_the_answerer():
    assert parse_request(Request("answerer", key="k" * 32).to_line()).key == "k" * 32
    with pytest.raises(ValueError):
        parse_request(b'{"v":1,"op":"answerer"}\n')
    assert parse_answer(b'{"v":1,"op":"answer","question":3,"answer":"once"}\n') == (3, "once")
    for bad in (b"", b"[]", b'{"v":1,"op":"answer","question":true,"answer":"once"}', b'{"v":1,"op":"answer"}'):
        assert parse_answer(bad) is None
    assert parse_answer(b'{"v":1,"op":"answer","question":3,"answer":"always"}') is None


async def test_an_unanswered_question_is_withdrawn_and_denied(laptop, server):
    """In process, on a short wait: the agent stops waiting, tells the wizard, and denies."""
    write_creds(laptop, valid(server))
    listener, path = place.listen()
    key = place.write_answer_key(path)
    agent = Agent(listener, path, answer_key=key, confirm_in_wizard=True)
    agent.confirm_wait = 0.5
    serving = asyncio.ensure_future(agent.run())
    try:
        while not os.path.exists(path) or agent._server is None:
            await asyncio.sleep(0.01)
        answering = await asyncio.to_thread(offer, path)
        assert answering is not None
        first = asyncio.ensure_future(asyncio.to_thread(answering.next))
        denied = await asyncio.to_thread(ask, Request("token"), path)
        assert denied["ok"] is False and denied["exit"] == 3 and "no answer at your own machine" in denied["error"]
        question = await first
        assert isinstance(question, Question)
        assert await asyncio.to_thread(answering.next) == Withdrawn(question.number)
        answering.close()
    finally:
        agent.stop()
        await serving


async def test_the_wizard_asks_and_allow_this_connection_serves(system, confirming, server, monkeypatch):
    """The whole way: the wizard open on the agent's machine, a request arrives, the dialog shows
    over Home (never a token), `c` allows the connection, the token is served."""
    monkeypatch.setenv("ASSISTANT_AUTH_SOCK", confirming.path)
    app = AssistantAuthApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "A token agent (pid" in screen_text(app))
        await wait_for(pilot, lambda: getattr(app, "agent_answers", None) is not None)
        await wait_for(pilot, lambda: app.agent_answers.answering is not None)
        asked = asyncio.ensure_future(asyncio.to_thread(ask, Request("token"), confirming.path))
        await wait_for(pilot, lambda: screen_name(app) == "AskScreen")
        text = screen_text(app)
        assert "A connection asks for an access token" in text
        assert ("from this machine" if system.places else "from a process this system cannot place") in text
        assert "of the default" in text
        await pilot.press("c")
        answer = await asked
        assert answer["ok"] is True and answer["access_token"] == server.issued[-1][0]
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        assert all(pair[0] not in screen_text(app) for pair in server.issued)


def test_the_question_names_what_is_asked_for_in_a_whole_sentence(home, monkeypatch):
    """Each kind of request is its own sentence in each language: no English selector glued into
    Chinese ("请求region global的令牌")."""
    from tui.app.screens.ask import asked_line

    assert (
        asked_line(3, "from this machine", "")
        == "Connection #3, from this machine, asks for a token of the default slot."
    )
    assert asked_line(3, "here", "region global").endswith("asks for a token of region global.")
    assert "\x1b" not in asked_line(3, "here", "provider \x1b[2Jx")  # one printable line
    monkeypatch.setenv("ASSISTANT_LANG", "zh-CN")
    assert asked_line(3, "来自本机", "region global") == "连接 #3（来自本机）请求地区 global 的令牌。"
    assert asked_line(3, "来自本机", "") == "连接 #3（来自本机）请求默认槽位的令牌。"
    assert "slot" not in asked_line(3, "来自本机", "slot assistant-code").replace("assistant-code", "")
