"""The code pane of the sign-in screen: the host, the address, the code, the address with the code
filled in, the live polling state and one notice line, drawn from a `SignIn`. The screen decides
what happens (the browser policy, the keys, toasts); this widget only draws."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.style import Style
from textual.widgets import LoadingIndicator, Static

from tui.app.widgets.safe import OneLine, PlainStatic
from tui.core.signin.attempt import SignIn
from tui.core.text.i18n import _
from tui.core.text.textwidth import cells, char_cells
from tui.core.text.untrusted import one_line

HIDDEN_UNTIL_CODE = ("#uri", "#user-code", "#uri-complete", "#demo-page", "#ssh-note")


def whole_parts(text: str) -> str:
    """A line of parts joined by " · ", that a narrow screen wraps between parts only: "0 次"
    never lands alone on a line of its own."""
    return text.replace(" ", "\u00a0").replace("\u00a0·\u00a0", " · ")


def spaced(code: str) -> str:
    """`WDJB-MJHT` -> `W D J B - M J H T`: easier to read aloud and to type."""
    return " ".join(one_line(code))


class CodePane(Vertical):
    def __init__(self, heading: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.heading = heading  # "Region cn · authorization host …"
        self.notice_text = ""

    def compose(self) -> ComposeResult:
        yield OneLine(self.heading, id="host")
        yield LoadingIndicator(id="requesting")
        yield Static(_("1. Open this address in a browser, on any device:"), classes="step")
        yield OneLine("", id="uri")
        yield Static(_("2. Enter this code there:"), classes="step")
        yield OneLine("", id="user-code")
        yield Static("", id="uri-complete", markup=False)
        yield OneLine("", id="demo-page")
        yield OneLine("", id="poll-state")
        yield OneLine("", id="poll-stats")
        yield OneLine("", id="ssh-note")
        yield PlainStatic("", id="notice")

    def set_heading(self, heading: str) -> None:
        self.heading = heading
        self.query_one("#host", OneLine).set_text(heading)

    def on_mount(self) -> None:
        for widget_id in HIDDEN_UNTIL_CODE:
            self.query_one(widget_id).display = False

    def show_code(
        self, attempt: SignIn, *, refusal: str | None, links: bool, ssh_line: str | None, demo_line: str | None
    ) -> None:
        """The address and the code (and the lines that go with them) once the code is known."""
        if ssh_line:
            self._show("#ssh-note", ssh_line)
        self.query_one("#requesting").display = False
        self._show("#uri", attempt.address or _("(the server sent no address)"))
        self._show("#user-code", spaced(attempt.user_code or ""))
        self.tick(attempt)
        self.show_complete_address(attempt, linked=refusal is None and links)
        if demo_line:
            self._show("#demo-page", demo_line)

    def _show(self, widget_id: str, text: str) -> None:
        line = self.query_one(widget_id, PlainStatic)
        line.set_text(text)
        line.display = True

    def tick(self, attempt: SignIn | None) -> None:
        state = self.query_one("#poll-state", PlainStatic)
        stats = self.query_one("#poll-stats", PlainStatic)
        if attempt is None or attempt.auth is None:
            state.set_text(_("Requesting a code…"))
            stats.set_text("")
            return
        state.set_text(
            _("Waiting for you to approve in the browser…  code expires in {left}").format(left=attempt.countdown())
        )
        stats.set_text(whole_parts(attempt.stats()))

    def show_complete_address(self, attempt: SignIn, *, linked: bool) -> None:
        """The address with the code filled in, as text too: a hyperlink (OSC 8) when `linked`
        (the terminal supports it and the browser policy accepts the address), else plain text."""
        complete = attempt.complete_address
        line = self.query_one("#uri-complete", Static)
        if not complete or complete == attempt.address:
            line.display = False
            return
        shown = one_line(complete, 200)
        link = Content.styled(shown, Style(link=complete, underline=True)) if linked else Content(shown)
        label = _("or, code filled in:")
        gap = "" if label and char_cells(label[-1]) == 2 else "\u00a0"  # none after a full-width colon
        lead = "\u00a0\u00a0\u00a0"
        width = self.content_size.width or self.app.size.width
        if cells(lead + label + gap + shown) > width:  # the link on a line of its own, never cut beside the label
            line.update(Content.assemble(Content(lead + label + "\n" + lead), link))
        else:
            line.update(Content.assemble(Content(lead + label + gap), link))
        line.display = True

    def notice(self, text: str) -> None:
        self.notice_text = text
        self.query_one("#notice", PlainStatic).set_text(text)

    def notice_in_view(self) -> bool:
        notice = self.query_one("#notice", PlainStatic)
        region = notice.region
        return bool(self.display and region.height and self.region.contains_region(region))

    def report(self, text: str, severity: SeverityLevel = "information") -> None:
        """The result of a key, said once: on the notice line below the status when that line is
        in view, else as a toast (a toast over the live status would hide it)."""
        self.notice(text)
        self.call_after_refresh(self._toast_if_hidden, text, severity)

    def _toast_if_hidden(self, text: str, severity: SeverityLevel) -> None:
        if self.notice_text != text or self.notice_in_view():
            return  # a newer notice replaced it, or it is in view
        self.notice("")
        self.app.notify(text, severity=severity, timeout=6, markup=False)
