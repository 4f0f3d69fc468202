"""`--confirm` as a person lives with it, through a real sshd: "allow this connection" covers the
SSH connection (every later request through that forward, from any shell on the server), not one
socket connection; the question names the host; the server side says at once that it waits for
approval on the person's own machine; a denial is exit 1, and a new SSH connection is asked again.
On every system (`system`): macOS and FreeBSD simulated say the same; a system that says nothing
asks about a stranger, each time."""

from __future__ import annotations

import os
import subprocess
import threading

from tests.agent.conftest import RunningAgent
from tests.agent.openssh import Forwarded, needs_openssh
from tests.cli.test_cli import valid
from tests.conftest import terminate, write_creds
from tests.spawned import spawn_command
from tests.waiting import PATIENCE
from tui.core.agent.client.answering import Question, offer
from tui.core.agent.server.confirm import ALLOW_CONNECTION, DENY

pytestmark = needs_openssh


class Person:
    """The person at the wizard: answers each question with `decision`, once `go` is set."""

    def __init__(self, path: str, decision: str) -> None:
        answering = offer(path)
        assert answering is not None
        self.answering, self.decision = answering, decision
        self.questions: list[Question] = []
        self.go = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            message = self.answering.next()
            if message is None:
                return
            if isinstance(message, Question):
                self.questions.append(message)
                self.go.wait(PATIENCE)
                self.answering.answer(message.number, self.decision)

    def close(self) -> None:
        self.answering.close()


def token_through(path: str, server_home):
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(server_home), "ASSISTANT_AUTH_SOCK": path, "ASSISTANT_LANG": "en"}
    return spawn_command(
        ["token"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL
    )


def test_allowing_the_connection_covers_the_whole_ssh_connection(system, laptop, server, sshd, server_home):
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy(), "--confirm")
    person = Person(agent.path, ALLOW_CONNECTION)
    first_ssh = Forwarded(sshd, agent.path)
    second_ssh = None
    try:
        asking = token_through(first_ssh.path, server_home)
        waiting = asking.stderr.readline()  # said before anyone answered: the person has not been let go yet
        assert "waiting for approval on your own machine" in waiting and not person.go.is_set()
        person.go.set()
        out, _err = asking.communicate(timeout=PATIENCE)
        assert asking.returncode == 0 and out.strip() == server.issued[-1][0]
        question = person.questions[0]
        assert question.op == "token"
        if not system.places:  # nothing says it came through ssh: a stranger, asked each time
            assert question.origin == "unknown" and question.host == ""
            again = token_through(first_ssh.path, server_home)
            again.communicate(timeout=PATIENCE)
            assert again.returncode == 0 and len(person.questions) == 2
            return
        assert question.origin == "forwarded" and question.host.endswith("127.0.0.1")
        for _ in range(3):  # new socket connections through the same SSH connection: never asked again
            again = token_through(first_ssh.path, server_home)
            out, err = again.communicate(timeout=PATIENCE)
            assert again.returncode == 0 and "waiting for approval" not in err
        assert len(person.questions) == 1
        second_ssh = Forwarded(sshd, agent.path)  # another SSH connection: asked again
        other = token_through(second_ssh.path, server_home)
        assert "waiting for approval" in other.stderr.readline()
        other.communicate(timeout=PATIENCE)
        assert other.returncode == 0 and len(person.questions) == 2
    finally:
        person.close()
        first_ssh.close()
        if second_ssh is not None:
            second_ssh.close()
        agent.stop()


def test_a_denial_is_exit_1_denied_at_your_own_machine(system, laptop, server, sshd, server_home):
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy(), "--confirm")
    person = Person(agent.path, DENY)
    person.go.set()
    through = Forwarded(sshd, agent.path)
    try:
        denied = token_through(through.path, server_home)
        out, err = denied.communicate(timeout=PATIENCE)
        assert denied.returncode == 1 and out == ""
        assert "waiting for approval on your own machine" in err and "denied at your own machine" in err
    finally:
        person.close()
        through.close()
        terminate(agent.process)
