"""Signed in: where things were written and what to do next."""

from __future__ import annotations

import pathlib

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Header, Static

from tui.app.host import AppScreen
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.safe import OneLine, PlainStatic
from tui.core.person.same_person import same_person_warning
from tui.core.slots.state import SlotStatus, signed_in_as, slot_status
from tui.core.spec.keys import DEFAULT_ACCOUNT, MANAGED_PROVIDER, account_slot
from tui.core.spec.paths import config_path, credentials_path
from tui.core.spec.region_endpoints import endpoints
from tui.core.spec.regions import Region
from tui.core.text.humantime import expiry
from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.terminal.text import short_path


def _inside(path, home) -> str:
    try:
        return str(path.relative_to(home))
    except ValueError:
        return short_path(path)


def done_rows(region: Region, status: SlotStatus) -> list[tuple[str, str]]:
    """What the sign-in wrote; `status` is the region's slot, read once by the caller."""
    ep = endpoints(region)
    key = f"oauth/{status.name}"  # the key the sign-in wrote for its slot (spec 4.5, both ways)
    home = config_path().parent
    return [
        (_("Files in"), short_path(home) + "/"),  # once: the two paths below stay short, never broken
        (_("Credentials"), _inside(credentials_path(status.name), home)),
        (_("Access token"), _("expires {when}").format(when=expiry(status.expires_at))),
        (_("Refresh token"), _("stored") if status.has_refresh_token else _("none sent by the server")),
        (_("Config"), _inside(config_path(), home)),
        (_("Provider"), f'[providers."{MANAGED_PROVIDER}"]'),
        ("base_url", ep.base_url),
        ("oauth key", key),
    ]


def farewell(region: Region, note: str | None = None, account: str | None = None) -> list[str]:
    """What a sign-in started by `login` leaves in the shell when the wizard ends on its success
    (as `gh auth login` does): who, where the credentials went, when the token expires, what next."""
    status = slot_status(account_slot(region, account or DEFAULT_ACCOUNT))
    lines = [
        f"✔ {signed_in_as(status)}",
        _("Credentials written to {path}").format(path=short_path(credentials_path(status.name))),
        _("Access token expires {when}").format(when=expiry(status.expires_at)),
    ]
    if note:
        lines.append(note)
    alike = same_person_warning(status.name)
    if alike:
        lines.append(alike)
    lines.append(_("Next: scripts can run `assistant-auth token` for a fresh access token."))
    return lines


def next_steps(demo: object | None) -> str:
    """What to do now. In a demo the files are in a temporary home that only the demo's own
    environment reaches: a plain `assistant-auth token` would read the real one."""
    keys = _("Press i to inspect credentials, p to review the provider entry, q to quit.")
    if demo is None:
        return _("Next: scripts can run `assistant-auth token` for a fresh access token.") + "\n" + keys
    if getattr(demo, "serve", False):
        return (
            _(
                "Next: quit with q; this terminal then prints the export lines for a second shell, where "
                "`assistant-auth token` reads this demo's files."
            )
            + "\n"
            + keys
        )
    return (
        _(
            "Next: this demo's files are removed when it ends. To try `assistant-auth token` on them, "
            "run `assistant-auth demo --serve`."
        )
        + "\n"
        + keys
    )


class DoneScreen(AppScreen[None]):
    CSS_PATH = str(pathlib.Path(__file__).with_name("done.tcss"))  # loaded when first opened
    BINDINGS = [
        Binding("escape", "home", N_("Home")),  # first: the footer keeps it at any width
        Binding("i", "app.inspect", N_("Credentials")),
        Binding("p", "app.providers", N_("Providers")),
        Binding("q", "app.request_quit", N_("Quit")),
    ]

    def __init__(self, region: Region, note: str | None = None, account: str | None = None) -> None:
        super().__init__()
        self.account_region = region
        self.slot = account_slot(region, account or DEFAULT_ACCOUNT)  # the slot the sign-in wrote
        self.note = note  # config.toml that others can read or write: said once, with the fix
        self.shown: SlotStatus | None = None  # the slot as composed
        self.laid_out_for = 0  # the terminal width the rows were laid out for

    def compose(self) -> ComposeResult:
        status = self.shown = slot_status(self.slot)
        yield Header()
        with VerticalScroll(id="done", can_focus=False):
            yield OneLine(f"✔ {signed_in_as(status)}", id="done-title", classes="fit")
            rows = done_rows(self.account_region, status)
            labels = max(cell_len(label) for label, _value in rows) + 2
            room = self.app.size.width - 4  # the screen's padding, and a scroll bar's cell
            self.laid_out_for = self.app.size.width
            with Vertical(id="done-details"):
                for label, value in rows:  # a value that does not fit beside its label goes under it, whole
                    if labels + cell_len(value) > room:
                        yield Static(label, classes="label", markup=False)
                        yield OneLine(value, classes="value under")
                        continue
                    with Horizontal(classes="row"):
                        yield Static(label, classes="label", markup=False).set_styles(f"width: {labels};")
                        yield OneLine(value, classes="value")
            if self.note:
                yield OneLine(self.note, id="done-note")
            alike = same_person_warning(self.slot)
            if alike:
                yield PlainStatic(alike, id="done-alike")
            yield Static(next_steps(self.host.demo), id="done-next", markup=False)
        yield AppFooter()

    def on_mount(self) -> None:
        self.sub_title = _("signed in · {region}").format(region=self.account_region.value)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self.laid_out_for:  # a new width only: what goes under its label follows it
            self.refresh(recompose=True)

    def on_screen_resume(self) -> None:
        """Back from the inspector (a refresh, a logout) or the editor: show the slot as it is now."""
        if slot_status(self.slot) != self.shown:
            self.refresh(recompose=True)  # compose reads the slot again

    def action_home(self) -> None:
        self.host.back()
