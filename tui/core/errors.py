"""The one exception type of the core: its text is the specification's message."""


class AuthError(Exception):
    """str(error) is exactly the message text the specification gives (sections 3.2, 4.x, 7.2).

    `hint` is an optional second line that names the next step (it is never part of the spec's
    text, so callers that compare messages keep working); `describe()` gives both lines.

    No AuthError text ever contains an access token, a refresh token or a device code:
    every body excerpt and transport detail goes through :func:`tui.core.redact.redact`.
    """

    def __init__(self, message: str, hint: str = "", *, transient: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        # network or server trouble (a transport failure, HTTP 5xx or 429): retrying may work,
        # and the stored sign-in is untouched. False means: something must change first.
        self.transient = transient

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message

    def describe(self) -> str:
        """The spec's message, then the hint on a line of its own when there is one."""
        return self.message + ("\n" + self.hint if self.hint else "")
