"""What the screens ask of the app, typed: `AppScreen.host` is the running `AssistantApp` seen
through `Host` (a protocol, so no screen imports the app module that loads it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from textual.screen import Screen

if TYPE_CHECKING:
    import httpx

    from tui.core.signin.attempt import SignIn


class Demo(Protocol):
    """`assistant-auth demo` only: the local approval page, and approving through it."""

    page: str

    def approve(self, user_code: str, subject: str | None = None) -> str: ...


class Host(Protocol):
    no_browser: bool
    http_client: httpx.AsyncClient | None  # tests may share one client; None: the core makes its own
    signin_clock: Callable[[], float]
    demo: Demo | None
    detached_attempt: SignIn | None

    def action_sign_in(self, region: str | None = None, replace: bool = False, account: str | None = None) -> None: ...

    def show_outcome(self, attempt: SignIn) -> None: ...

    def keep_polling(self, attempt: SignIn) -> None: ...

    def switched(self, outcome: object) -> tuple[bool, str]: ...

    def back(self, return_code: int = 0) -> None: ...


ResultType = TypeVar("ResultType")


class AppScreen(Screen[ResultType]):
    """A screen of this app."""

    @property
    def host(self) -> Host:
        """The app, as what the screens ask of it."""
        return cast(Host, self.app)
