"""The one exception type of the core: its text is the specification's message."""


class AuthError(Exception):
    """str(error) is exactly the message text the specification gives (sections 3.2, 4.x, 7.2).

    No AuthError text ever contains an access token, a refresh token or a device code:
    every body excerpt and transport detail goes through :func:`tui.core.redact.redact`.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message
