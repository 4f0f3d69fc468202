"""The wizard answers `agent --confirm`'s questions when the agent runs on this machine: a worker
thread holds the connection (`tui.core.agent.client.answering`), each question is a dialog over whatever
screen is open, and a question the agent stops waiting for closes as denied."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.app.screens.ask import AskScreen
from tui.core.agent.client.answering import Answering, Question, Withdrawn, offer
from tui.core.agent.server.confirm import CONFIRM_WAIT, DENY

if TYPE_CHECKING:
    from textual.app import App


class AgentAnswers:
    def __init__(self, app: App, path: str) -> None:
        self.app, self.path = app, path
        self.answering: Answering | None = None
        self.open: dict[int, AskScreen] = {}
        self.closed = False

    def run(self) -> None:
        """The worker thread: offer to answer, then relay each question to the screen until the
        agent or the app goes away."""
        self.answering = offer(self.path)
        if self.answering is None or self.closed:
            return
        while True:
            message = self.answering.next()
            if message is None:
                return
            if isinstance(message, Question):
                self.app.call_from_thread(self.ask, message)
            elif isinstance(message, Withdrawn):
                self.app.call_from_thread(self.withdraw, message.number)

    def ask(self, question: Question) -> None:
        dialog = AskScreen(
            question.connection,
            question.origin,
            question.asked_for,
            CONFIRM_WAIT,
            question.op,
            question.host,
            question.via,
        )
        self.open[question.number] = dialog

        def answered(value: str | None) -> None:
            self.open.pop(question.number, None)
            if self.answering is not None:
                self.answering.answer(question.number, value or DENY)

        self.app.push_screen(dialog, answered)

    def withdraw(self, number: int) -> None:
        dialog = self.open.pop(number, None)
        if dialog is not None and dialog.is_attached:
            dialog.dismiss(DENY)

    def close(self) -> None:
        self.closed = True
        if self.answering is not None:
            self.answering.close()
