"""Messages the sign-in worker posts to its screen."""

from __future__ import annotations

from textual.message import Message

from tui.core.device_flow import DeviceAuthorization, PollStatus


class CodeReady(Message):
    def __init__(self, auth: DeviceAuthorization) -> None:
        super().__init__()
        self.auth = auth


class PollUpdate(Message):
    def __init__(self, status: PollStatus) -> None:
        super().__init__()
        self.status = status


class SignInFinished(Message):
    """A terminal status, or an error message (AuthError text) when `status` is None."""

    def __init__(self, status: PollStatus | None, error: str | None = None) -> None:
        super().__init__()
        self.status = status
        self.error = error
