"""The inspector's details pane: what one slot holds, in lines a person reads. Tokens are masked,
never whole; every value from a file or a token's claims is one printable line."""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.containers import VerticalScroll

from tui.app.widgets.safe import PlainStatic
from tui.core.credentials.jwt import decode_claims
from tui.core.credentials.slot import expires_at_of
from tui.core.person.overview import Overview
from tui.core.slots.advice import next_step
from tui.core.slots.state import BROKEN, DANGLING, UNREADABLE, SlotStatus
from tui.core.text.humantime import expiry, stamp
from tui.core.text.i18n import _
from tui.core.text.phrase import said
from tui.core.text.redact import is_secret_name, mask
from tui.core.text.textwidth import cells
from tui.core.text.untrusted import one_line
from tui.terminal.text import short_path

TIME_CLAIMS = ("exp", "iat", "nbf", "auth_time")


def is_secret_field(name: str) -> bool:
    return is_secret_name(name) or name.lower().endswith("code")


LABEL_CELLS = 11  # the details' labels are padded to this many terminal cells (CJK two each)


def row(label: str, value: str) -> str:
    """One line of the details: a label in the reader's language, padded by cells, and its value."""
    return label + " " * max(LABEL_CELLS - cells(label), 1) + value


def without_prefix(warning: str) -> str:
    """A line of `file_warnings` in the reader's language, without its "warning: " (the row's
    label says it)."""
    text = said(warning)
    for prefix in ("warning: ", _("warning: {problem}").format(problem="")):
        text = text.removeprefix(prefix)
    return text


def detail_lines(
    slot: SlotStatus,
    users: list[str],
    now: float | None = None,
    missing_hosts: dict[str, str] | None = None,
    warnings: list[str] | None = None,
) -> list[str]:
    """What the details pane shows for a slot: tokens masked, never whole."""
    lines = [row(_("File"), one_line(short_path(slot.path), 1000))]
    if slot.link is not None:  # a link is shown as a link: where it points, and whether that is there
        target = one_line(slot.link, 1000)
        lines.append(
            row(_("Link"), _("→ {target} (gone)").format(target=target) if slot.state == DANGLING else f"→ {target}")
        )
    lines.append(row(_("State"), slot.label))
    if slot.detail:
        lines.append(row(_("Problem"), one_line(slot.detail_text, 200)))
    if slot.state in (DANGLING, UNREADABLE):
        lines.append(row(_("Next"), one_line(said(next_step(slot)), 1000)))
    if slot.has_expiry:
        lines.append(row(_("Expires"), expiry(slot.expires_at, now)))
    if slot.refresh_rejected:
        lines.append(
            row(
                _("Refresh"),
                _("rejected by the server {when}: sign in again (press s, or `{command}`)").format(
                    when=stamp(slot.refresh_rejected_at or 0), command=slot.sign_in
                ),
            )
        )
    if slot.scope or slot.token_type:
        lines.append(
            row(_("Scope"), _("{scope}    Type {type}").format(scope=slot.scope or "—", type=slot.token_type or "—"))
        )
    if slot.mode is not None:
        facts = (
            _("{mode}    Size {size} B    Modified {when}")
            if slot.mode == 0o600
            else _("{mode}  (should be 0600: press m)    Size {size} B    Modified {when}")
        )
        lines.append(row(_("Mode"), facts.format(mode=f"{slot.mode:04o}", size=slot.size, when=stamp(slot.mtime or 0))))
    lines.append(row(_("Used by"), one_line(", ".join(users)) if users else _("no provider in config.toml")))
    lines.extend(row(_("Warning"), one_line(without_prefix(warning), 1000)) for warning in warnings or ())
    for name in users:
        if missing_hosts and name in missing_hosts:
            lines.append(
                row(
                    _("Note"),
                    _("{provider} names no oauth host; its key was made for {host} (used)").format(
                        provider=one_line(name, 80), host=one_line(missing_hosts[name])
                    ),
                )
            )
    if slot.state in BROKEN:
        lines.append("")
        lines.append(_("This file cannot be used. Press x to move it aside (nothing is deleted) and sign in again."))
    lines.extend(field_lines(slot.fields))
    return lines


def field_lines(fields: dict[str, object]) -> list[str]:
    """The file's fields (secrets masked) and the access token's claims (decoded, not verified)."""
    if not fields:
        return []
    lines = ["", _("Fields")]
    for name, value in fields.items():
        shown = mask(value) if is_secret_field(str(name)) else json.dumps(value, ensure_ascii=False)
        expires_at = expires_at_of(fields) if name == "expires_at" else None
        if expires_at is not None and expires_at > 0:
            shown += f"  ({stamp(expires_at)})"
        lines.append(f"  {one_line(name, 20):<15} {one_line(shown, 90)}")
    claims = decode_claims(fields.get("access_token"))
    if claims:
        lines.append("")
        lines.append(_("Access token claims (decoded, not verified)"))
        for name, value in claims.items():
            shown = json.dumps(value, ensure_ascii=False)
            if name in TIME_CLAIMS and isinstance(value, (int, float)):
                shown += f"  ({stamp(value)})"
            lines.append(f"  {one_line(name, 20):<15} {one_line(shown, 90)}")
    return lines


class SlotDetails(VerticalScroll):
    """The details of the selected slot, scrolled when longer than the pane."""

    def compose(self) -> ComposeResult:
        yield PlainStatic("", id="details")

    def show(self, slot: SlotStatus | None, view: Overview | None) -> None:
        """`slot` as `view` (the one read of the slots and config.toml) knows it; nothing selected
        says there are no credentials yet."""
        text = self.query_one("#details", PlainStatic)
        if slot is None or view is None:
            text.set_text(_("No credentials yet."))
            return
        lines = detail_lines(
            slot, view.users.get(slot.name, []), missing_hosts=view.missing_hosts, warnings=view.warnings
        )
        text.set_text("\n".join(lines))
