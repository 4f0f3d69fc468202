"""The one exception type of the core: its text is the specification's message."""

MESSAGE_WIDTH = 1000  # characters of one message line: the spec's excerpts are 200, paths can be long

# The exit codes, for every face and both sides of the token agent (docs/commands.md):
EXIT_OK = 0
EXIT_SIGN_IN = 1  # sign in again: not signed in, denied, expired, refresh rejected; a sign-in not completed
EXIT_USAGE = 2  # usage: a name or a value that cannot be one; an unexpected error
EXIT_TRANSIENT = 3  # network or server trouble: retry


class Problem:
    """What kind of failure an AuthError is, so a caller tells failures apart by their kind, never
    by their words (the spec's text can change; a server's exit code must not with it). Plain
    strings: this module is on `token`'s path. `EXIT` gives each its exit code."""

    NOT_SIGNED_IN = "not signed in"  # no credential file for the slot
    REJECTED = "rejected"  # the server rejected the refresh token: sign in again
    DAMAGED = "damaged"  # the credential file cannot be read as credentials
    UNKNOWN_SLOT = "unknown slot"
    UNKNOWN_PROVIDER = "unknown provider"
    UNKNOWN_ACCOUNT = "unknown account"
    AMBIGUOUS_ACCOUNT = "ambiguous account"
    INVALID_KEY = "invalid key"  # an oauth key that is no slot's name
    LOCKED = "locked"  # gave up waiting for a slot's or config.toml's lock
    UNMET = "unmet"  # a lifetime (--min-ttl) no token can have
    NO_ACCESS = "no access"  # files this user cannot read or write (a home left to root by sudo): fix them first
    NOT_STORED = "not stored"  # approved tokens the slot's file could not take (exit: as any failed sign-in)
    CONFIG = "config"  # config.toml, which names the active account, cannot be read: name one, or mend it
    SETTING = "setting"  # a setting that names what is not there (SSL_CERT_FILE): change it, no sign-in helps


EXIT = {
    Problem.NOT_SIGNED_IN: EXIT_SIGN_IN,
    Problem.REJECTED: EXIT_SIGN_IN,
    Problem.DAMAGED: EXIT_SIGN_IN,
    Problem.UNKNOWN_SLOT: EXIT_USAGE,
    Problem.UNKNOWN_PROVIDER: EXIT_USAGE,
    Problem.UNKNOWN_ACCOUNT: EXIT_USAGE,
    Problem.AMBIGUOUS_ACCOUNT: EXIT_USAGE,
    Problem.INVALID_KEY: EXIT_SIGN_IN,
    Problem.LOCKED: EXIT_TRANSIENT,
    Problem.UNMET: EXIT_USAGE,
    Problem.SETTING: EXIT_USAGE,
    Problem.CONFIG: EXIT_USAGE,
    Problem.NO_ACCESS: EXIT_USAGE,
}


class AuthError(Exception):
    """str(error) is exactly the message text the specification gives (sections 3.2, 4.x, 7.2).

    `hint` is an optional second line that names the next step (it is never part of the spec's
    text, so callers that compare messages keep working); `describe()` gives both lines.

    No AuthError text ever contains an access token, a refresh token or a device code:
    every body excerpt and transport detail goes through :func:`tui.core.text.redact.redact`.
    """

    def __init__(
        self, message: str, hint: str = "", *, transient: bool = False, next_step: str = "", kind: str = ""
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind  # a `Problem`, or "" for a failure no caller tells apart
        self.hint = hint
        # the next step the English message already says in its own words (a `Phrase`): said on
        # a line of its own only in another language, so every reader gets one in theirs
        self.next_step = next_step
        # network or server trouble (a transport failure, HTTP 5xx or 429): retrying may work,
        # and the stored sign-in is untouched. False means: something must change first.
        self.transient = transient

    @property
    def exit_code(self) -> int:
        """The exit code of this failure, for every face: by its kind; else 3 for network or
        server trouble, 1 for the rest (sign in again)."""
        if self.kind in EXIT:
            return EXIT[self.kind]
        return EXIT_TRANSIENT if self.transient else EXIT_SIGN_IN

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message

    def describe(self) -> str:
        """What a face shows: the spec's message, then the hint on a line of its own when there is
        one, each as one printable line (a server's body inside a message cannot add lines)."""
        from tui.core.text.untrusted import (  # lazy: unicodedata, when shown
            one_line,  # only when an error is shown: not on the token path
        )

        shown = one_line(self.message, MESSAGE_WIDTH)
        return shown + ("\n" + one_line(self.hint, MESSAGE_WIDTH) if self.hint else "")

    def said(self, *, lead: bool = True) -> str:
        """`describe()` for a person: the spec's message word for word (it is what people search
        for and support asks for), the hint in the reader's language. In another language than
        English, a sentence of that language comes first (unless `lead` is False: the caller says
        one) and says the message below is the original English one. `describe()` stays English
        (JSON, logs)."""
        from tui.core.text.i18n import _, translated  # lazy: only when an error is shown to a person
        from tui.core.text.phrase import said  # lazy: off token's path
        from tui.core.text.untrusted import one_line  # lazy: unicodedata, when shown

        lines = [one_line(self.message, MESSAGE_WIDTH)]
        if self.hint:
            lines.append(one_line(said(self.hint), MESSAGE_WIDTH))
        elif self.next_step and translated():
            lines.append(one_line(said(self.next_step), MESSAGE_WIDTH))
        if lead and translated():
            first = (
                _("Network or server trouble: retry in a moment. The original message, in English:")
                if self.transient
                else _("It did not work. The original message, in English:")
            )
            lines.insert(0, first)
        return "\n".join(lines)
