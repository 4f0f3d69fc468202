"""What Home says: the slots' summary above the list, each slot's sentence, the named accounts'
rows of the list, the prompt above it and the question before abandoning a waiting sign-in.
Text only: the screen (`home`) shows it."""

from __future__ import annotations

import time
from collections.abc import Iterable

from textual.widgets.option_list import Option

from tui.app.widgets.safe import plain
from tui.core.person.overview import Overview, away_text
from tui.core.slots.state import MISSING, REVOKED, VALID, SlotStatus
from tui.core.spec.hints import placeholders
from tui.core.spec.keys import DEFAULT_ACCOUNT, account_of_slot
from tui.core.spec.region_endpoints import endpoints
from tui.core.spec.regions import Region
from tui.core.text.humantime import clock, relative
from tui.core.text.i18n import _
from tui.core.text.textwidth import cells, cut
from tui.core.text.untrusted import one_line

ACCOUNT_ROW = "account:"  # the id of a named account's row: account:<region>:<name>
HOME_IDENTITY = 20  # characters of an identity on Home, so a slot's line fits 60 columns (the inspector has it all)


def slot_line(status: SlotStatus, now: float | None = None) -> str:
    """One slot in a sentence: who is signed in and until when, or what is wrong."""
    if status.state == MISSING:
        return _("Not signed in")
    if status.state == REVOKED:
        return _("Signed out (revoked) by the official client: sign in again")
    if status.has_expiry:
        name = one_line(status.identity, HOME_IDENTITY) if status.identity else None
        who = _("Signed in as {who}").format(who=name) if name else _("Signed in")
        if status.state == VALID:  # relative: the line fits 60 columns; the inspector has the date
            left = status.expires_in(now)
            if left is None:
                return (
                    _("{who} · no expiry; refresh rejected") if status.refresh_rejected else _("{who} · no expiry")
                ).format(who=who)
            line = (
                _("{who} · expires {when}; refresh rejected")
                if status.refresh_rejected
                else _("{who} · expires {when}")
            )
            return line.format(who=who, when=relative(left))
        if status.refresh_rejected:
            return _("{who} · refresh rejected: sign in again").format(who=who)
        if status.has_refresh_token:
            return _("{who} · token expired, refreshes on next use").format(who=who)
        return _("{who} · expired, no refresh token: sign in again").format(who=who)
    return _("{state}: {detail}").format(state=status.label, detail=one_line(status.detail_text, 50))


def fitted(text: str, width: int) -> str:
    """`text` in at most `width` cells, its end shortened to … (a width of 0 or less: as it is).
    A row laid out in columns is shortened in its middle column, never wrapped under its marker."""
    if width <= 0 or cells(text) <= width:
        return text
    return cut(text, max(width - 1, 0)) + "…"


def region_options(columns: int = 0) -> list[Option]:
    """The two regions' rows: each region's host (or that it is still the placeholder), fitted to
    `columns` cells."""
    options = []
    unset = dict(placeholders())
    for region in (Region.CN, Region.GLOBAL):
        host = endpoints(region).oauth_host
        if region.value in unset:  # said before Enter, in words that fit 60 columns
            said = _("placeholder: set {variable}").format(variable=unset[region.value])
        else:
            said = host + ("   " + _("(default)") if region is Region.CN else "")
        label = f"{region.value:<7} " + fitted(one_line(said), columns - 8)  # hosts come from the environment
        options.append(Option(plain(label), id=region.value))
    return options


def home_summary(view: Overview, kept: Iterable[str] = (), columns: int = 0) -> tuple[str, str, Region | None]:
    """(text, css class, managed region): every region's slot and any other slot on disk, the
    one the managed provider uses marked with *, each fitted to `columns` cells (0: as long as
    it is). `kept`: what ended while the person was away, as first shown: said until they have
    seen it, though its record is gone once marked seen."""
    ordered = view.with_regions()
    labels = [status.title(24) for status in ordered]
    width = max([7] + [len(label) for label in labels])
    lines = []
    with_named = {a.region.value for a in view.accounts if a.name != DEFAULT_ACCOUNT}
    for status, label in zip(ordered, labels, strict=True):
        marker = "*" if status.name == view.managed else "\u00a0"  # a plain space would be trimmed
        said = slot_line(status, view.now)
        own = account_of_slot(status.name)
        if status.state == MISSING and own is not None and own[1] == DEFAULT_ACCOUNT and own[0] in with_named:
            said = _("no sign-in of its own; its accounts are below")  # never "not signed in" beside them
        prefix = f"{marker} {label:<{width}} "
        lines.append(prefix + fitted(said, columns - cells(prefix)))
    if any(status.name == view.managed for status in ordered):
        lines.append(_("* used by the managed provider and by assistant-auth token"))
    if view.dangling is not None:  # the active account was signed out, and nothing else could take its place
        where, name = view.dangling
        lines.append(
            _(
                "Account {name} ({region}), which the managed provider names, is signed out: sign in to it again "
                "(`assistant-auth login --account {name} --region {region}`) or switch to another account."
            ).format(name=name, region=where)
        )
    for record in view.waiting:  # a sign-in of another terminal, or of one that went away
        left = clock(max(record.deadline - time.time(), 0))
        text = (
            _("A {region} sign-in waits for approval ({left} left): Enter follows it, n abandons it.")
            if record.polled
            else _("A {region} sign-in has nobody polling it ({left} left): Enter resumes it, n abandons it.")
        )
        lines.append(text.format(region=record.region.value, left=left))
    lines.extend(away_text(record) for record in view.away)
    lines.extend(line for line in kept if line not in lines)
    current = next((s for s in ordered if s.name == view.managed), ordered[0])
    if current.usable:
        css = "valid" if current.state == VALID else "expired"
    elif current.state == MISSING:
        css = "missing"
    else:
        css = "broken"
    region = Region(current.region) if view.managed is not None and current.region else None
    return "\n".join(lines), css, region


def abandon_question(region: Region):
    """`n` on Home: the waiting sign-in's code stops being polled."""
    from tui.app.screens.confirm import ConfirmScreen  # lazy: the wizard's cold start

    return ConfirmScreen(
        _("Abandon the waiting {region} sign-in?").format(region=region.value),
        _("Its code stops being polled; a new sign-in gets a new code."),
        yes=_("Abandon"),
        no=_("Keep it"),
    )


def account_options(view: Overview | None, columns: int = 0) -> list[Option]:
    """A row per named account (the regions' own are the rows above): who is signed in, * active;
    fitted to `columns` cells."""
    rows = []
    for account in view.accounts if view is not None else ():
        if account.name == DEFAULT_ACCOUNT:
            continue
        who = one_line(account.status.identity, HOME_IDENTITY) if account.status.identity else account.status.label
        if account.active:
            who = _("{who} · in use").format(who=who)
        prefix = f"{account.label:<14} "
        label = prefix + fitted(who, columns - cells(prefix))
        rows.append(Option(plain(label), id=f"{ACCOUNT_ROW}{account.region.value}:{account.name}"))
    return rows


def prompt(view: Overview | None) -> str:
    """What the list below offers: the regions, and the named accounts once there is one."""
    if view is not None and any(account.name != DEFAULT_ACCOUNT for account in view.accounts):
        return _("Choose a region, or one of your accounts:")
    return _("Choose the region of your account:")
