"""`assistant-auth status`: every credential slot and its state, never a token."""

from __future__ import annotations

import sys
import time

from tui.cli.options import selector_values
from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, out, out_json
from tui.cli.selection import selected_slot
from tui.core.hints import placeholders
from tui.core.humantime import expiry, relative
from tui.core.overview import Overview, away_text, overview
from tui.core.regions import Region
from tui.core.signin import follow
from tui.core.slots.state import EXPIRED, SlotStatus, signed_in_as
from tui.core.untrusted import one_line

SCHEMA_VERSION = 1  # of `status --json`: raised when a field changes meaning or goes away


def run(ns) -> int:
    narrowed = any(v is not None for v in selector_values(ns).values())
    chosen = selected_slot(ns) if narrowed else None
    if narrowed and chosen is None:
        return EXIT_ERROR
    view = overview()  # one read of the slots and config.toml for everything below
    selected = chosen or view.default_slot
    slots = [view.slot(selected)] if narrowed else list(view.slots)
    if selected not in [s.name for s in slots]:
        slots.insert(0, view.slot(selected))
    usable = view.slot(selected).usable
    if ns.json:
        out_json(_as_json(view, slots, selected, usable))
        return EXIT_OK if usable else EXIT_FAIL
    for s in slots:
        for line in _slot_lines(view, s, selected):
            out(line)
    out("* the slot `assistant-auth token` uses" + (" (the one selected)" if narrowed else ""))
    for line in _next_steps(view, selected) + _notes(view):
        out(line)
    if view.away and sys.stdin.isatty() and sys.stdout.isatty():
        for record in view.away:  # said on a terminal: seen
            follow.mark_seen(record.region)
    return EXIT_OK if usable else EXIT_FAIL


def _as_json(view: Overview, slots: list[SlotStatus], selected: str, usable: bool) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "selected": selected,
        "managed_slot": view.managed,
        "usable": usable,
        "slots": [{**s.to_dict(), "providers": view.users.get(s.name, [])} for s in slots],
        "providers_missing_oauth_host": view.missing_hosts,
        "warnings": view.warnings,
        "config_problem": view.config_problem.describe() if view.config_problem else None,
        "away": view.away_json(),  # never consumed by --json
    }


def _slot_lines(view: Overview, s: SlotStatus, selected: str) -> list[str]:
    """One slot: its state and expiry, who uses it, who is signed in, where the file is."""
    marker = "*" if s.name == selected else " "
    line = f"{marker} {s.region or one_line(s.name, 60)}: {s.label}"  # the slot's name is on its path line
    stored = ", refresh token stored" if s.has_refresh_token and not s.refresh_rejected else ""
    if s.state == EXPIRED and s.expires_at is not None and s.expires_at > 0:
        ago = time.time() - s.expires_at
        line += (" long ago" if ago > 365 * 86400 else f" {relative(-ago)}") + stored
    elif s.has_expiry:
        line += f", expires {expiry(s.expires_at)}" + stored
    elif s.detail:
        line += f" ({one_line(s.detail, 80)})"
    if view.users.get(s.name):
        line += f"; used by {one_line(', '.join(view.users[s.name]))}"
    lines = [line]
    if s.usable:
        lines.append(f"    {signed_in_as(s)}" + (" (used by the managed provider)" if s.name == view.managed else ""))
    lines.append(f"    {one_line(s.path, 1000)}")
    return lines


def _next_steps(view: Overview, selected: str) -> list[str]:
    """What to do next, as `gh auth status` gives it: sign in, how a detached sign-in ended, one
    that waits for approval."""
    lines = []
    chosen = view.slot(selected)
    if not chosen.usable or chosen.refresh_rejected:
        flag = " --region global" if chosen.region == "global" else ""
        again = " again (the server rejected the refresh token)" if chosen.refresh_rejected else ""
        lines.append(f"To sign in{again}: assistant-auth login{flag}")
    lines += [away_text(record) for record in view.away]  # said until seen on a terminal
    for record in view.waiting:
        flag = " --region global" if record.region is Region.GLOBAL else ""
        lines.append(
            f"A sign-in in {record.region.value} is waiting for approval: `assistant-auth login{flag}` follows it."
        )
    return lines


def _notes(view: Overview) -> list[str]:
    """Placeholder hosts, file warnings, an unreadable config.toml, hosts missing from it."""
    lines = [
        f"note: the {region} authorization host is still a placeholder: set {variable} to your service's host."
        for region, variable in placeholders()
    ]
    lines += view.warnings
    if view.config_problem is not None:
        lines.append("warning: " + view.config_problem.describe())
    for name, host in view.missing_hosts.items():
        lines.append(
            f"note: provider {one_line(name, 80)} names no oauth host in config.toml; its key was made for {one_line(host)}, "
            "which is used. Write it back as oauthHost (assistant-auth config)."
        )
    return lines
