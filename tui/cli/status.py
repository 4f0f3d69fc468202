"""`assistant-auth status`: every credential slot and its state, never a token."""

from __future__ import annotations

import sys
import time

from tui.cli.agent.status import status_from_agent, where_served
from tui.cli.options import selector_of
from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, err, out, out_json
from tui.cli.selection import selected_slot
from tui.core.agent.served import AGENT_HERE, FORWARDED, OTHER_HOME, UNREACHABLE
from tui.core.person.overview import Overview, away_text, overview, waiting_text
from tui.core.signin import ondisk
from tui.core.signin.place import odd
from tui.core.slots.advice import next_step, switch_step
from tui.core.slots.state import EXPIRED, MISSING, SlotStatus, signed_in_as
from tui.core.spec.hints import placeholders
from tui.core.spec.keys import DEFAULT_ACCOUNT, account_of_slot
from tui.core.spec.regions import Region
from tui.core.text.humantime import expiry, relative
from tui.core.text.i18n import _, in_english
from tui.core.text.phrase import said
from tui.core.text.untrusted import one_line

SCHEMA_VERSION = 1  # of `status --json`: raised when a field changes meaning or goes away


def run(ns) -> int:
    served: dict = {}
    found = where_served(ns)  # the one source: on a server, the agent's slots; here, this machine's truth
    if found.where in (FORWARDED, OTHER_HOME):
        return status_from_agent(ns, found.via)
    if found.where == UNREACHABLE:
        return found.exit_code
    if found.where == AGENT_HERE:
        served = {"socket": found.via, "pid": found.pid}
    narrowed = selector_of(ns).named
    chosen = selected_slot(ns) if narrowed else None
    if narrowed and chosen is None:
        return EXIT_ERROR
    view = overview()  # one read of the slots and config.toml for everything below
    selected = chosen or view.default_slot
    if ns.slot and view.slot(selected).state == MISSING:  # a named slot with no file: unknown, as for `token`
        err(
            _("assistant-auth: no slot named {slot} here: `assistant-auth status` lists the slots").format(
                slot=one_line(ns.slot, 200)
            )
        )
        return EXIT_ERROR
    slots = [view.slot(selected)] if narrowed else list(view.slots)
    if selected not in [s.name for s in slots]:
        slots.insert(0, view.slot(selected))
    usable = view.slot(selected).usable
    if ns.json:
        out_json({**_as_json(view, slots, selected, usable), **({"agent": served} if served else {})})
        return EXIT_OK if usable else EXIT_FAIL
    block = [] if narrowed else account_lines(view)
    for line in block:
        out(line)
    listed = [s for s in slots if not block or not _in_block(view, s, selected)]  # each account once
    for s in listed:
        for line in _slot_lines(view, s, selected):
            out(line)
    if any(s.name == selected for s in listed):
        out(
            _("* the slot `assistant-auth token` uses (the one selected)")
            if narrowed
            else _("* the slot `assistant-auth token` uses")
        )
    for line in _next_steps(view, selected) + _notes(view):
        out(line)
    if served:
        out(
            _("The token agent (pid {pid}) at {socket} serves this machine's sign-in to programs that ask it.").format(
                pid=served.get("pid") or "?", socket=one_line(served.get("socket"), 300)
            )
        )
    if view.away and sys.stdin.isatty() and sys.stdout.isatty():
        for record in view.away:  # said on a terminal: seen
            ondisk.seen(record.region)
    return EXIT_OK if usable else EXIT_FAIL


def _as_json(view: Overview, slots: list[SlotStatus], selected: str, usable: bool) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "selected": selected,
        "managed_slot": view.managed,
        "usable": usable,
        "slots": [{**s.to_dict(), "providers": view.users.get(s.name, [])} for s in slots],
        "accounts": [account.to_dict() for account in view.accounts],
        "managed_account": managed_account(view),
        "providers_missing_oauth_host": view.missing_hosts,
        "warnings": _warnings_in_english(view),
        "config_problem": view.config_problem.describe() if view.config_problem else None,
        "away": view.away_json(),  # never consumed by --json
        "signin_entries_ignored": [str(line) for region in Region for line in odd(region)],
    }


def _warnings_in_english(view: Overview) -> list[str]:
    """The warnings the text prints (but config.toml's own problem: `config_problem`), in English."""
    with in_english():
        return view.file_notices() + ([] if view.config_problem is not None else view.config_notices())


def managed_account(view: Overview) -> dict | None:
    """`status --json`'s `managed_account`: the account the managed provider names (also one
    without a file: `exists` false), None when it names a slot that is no account."""
    named = account_of_slot(view.managed) if view.managed else None
    if named is None:
        return None
    return {"name": named.name, "region": named.region, "exists": view.dangling is None}


def account_lines(view: Overview) -> list[str]:
    """The accounts, once there is a named one: name, region, who and state, the active one
    (the managed provider's, which `token` and the official client use) marked."""
    accounts = view.accounts
    if not any(account.name != DEFAULT_ACCOUNT for account in accounts):
        return []
    width = max(len(account.name) for account in accounts)  # ASCII by the name rule
    lines = [_("Accounts (* the active one: the managed provider, `token` and the official client use it):")]
    for account in accounts:
        marker = "*" if account.active else " "
        who = account.status.identity or _("(no name in the token)")
        status = account.status
        if status.has_expiry and status.usable:
            text = _("{who}, {state}, expires {when}").format(
                who=who, state=status.label, when=expiry(status.expires_at)
            )
        else:
            text = _("{who}, {state}").format(who=who, state=status.label)
        lines.append(f"{marker} {account.name:<{width}}  {account.region.value:<6}  " + text)
    return lines


def _in_block(view: Overview, s: SlotStatus, selected: str) -> bool:
    """The slot is said by the Accounts block already: an account's, or a region's own slot
    with no file (an account that is not there), unless it is the one `token` uses."""
    if any(account.slot == s.name for account in view.accounts):
        return True
    return s.state == MISSING and s.name != selected and account_of_slot(s.name) is not None


def _slot_lines(view: Overview, s: SlotStatus, selected: str) -> list[str]:
    """One slot: its state and expiry, who uses it, who is signed in, where the file is."""
    marker = "*" if s.name == selected else " "
    lines = [f"{marker} {_slot_line(s)}"]
    if view.users.get(s.name):
        lines[0] = _("{slot_line}; used by {providers}").format(
            slot_line=lines[0], providers=one_line(", ".join(view.users[s.name]))
        )
    if s.usable:
        who = signed_in_as(s)
        lines.append(
            "    " + (_("{who} (used by the managed provider)").format(who=who) if s.name == view.managed else who)
        )
    lines.append(f"    {one_line(s.path, 1000)}")
    return lines


def _slot_line(s: SlotStatus) -> str:
    """ "cn: valid, expires …, refresh token stored": each case one whole sentence of the catalog."""
    name = s.title(60)  # the slot's name is on its path line
    stored = s.has_refresh_token and not s.refresh_rejected
    if s.state == EXPIRED and s.expires_at is not None and s.expires_at > 0:
        ago = time.time() - s.expires_at
        when = _("long ago") if ago > 365 * 86400 else relative(-ago)
        text = _("{name}: {state} {when}, refresh token stored") if stored else _("{name}: {state} {when}")
        return text.format(name=name, state=s.label, when=when)
    if s.has_expiry:
        text = (
            _("{name}: {state}, expires {when}, refresh token stored")
            if stored
            else _("{name}: {state}, expires {when}")
        )
        return text.format(name=name, state=s.label, when=expiry(s.expires_at))
    if s.detail:
        return _("{name}: {state} ({detail})").format(name=name, state=s.label, detail=one_line(s.detail_text, 80))
    return f"{name}: {s.label}"


def _next_steps(view: Overview, selected: str) -> list[str]:
    """What to do next, as `gh auth status` gives it: sign in, how a detached sign-in ended, one
    that waits for approval."""
    lines = []
    chosen = view.slot(selected)
    step = next_step(chosen)  # the sign-in of this slot (a named account's names it), or its repair
    if step:
        lines.append(said(step))
    if chosen.state == MISSING and selected == view.managed and (other := switch_step(view.accounts)):
        lines.append(said(other))  # or the switch to an account signed in here
    lines += [away_text(record) for record in view.away]  # said until seen on a terminal
    lines += [waiting_text(record) for record in view.waiting]
    return lines


def _notes(view: Overview) -> list[str]:
    """Placeholder hosts, file warnings, an unreadable config.toml, hosts missing from it."""
    lines = [
        _(
            "note: the {region} authorization host is still a placeholder: set {variable} to your service's host."
        ).format(region=region, variable=variable)
        for region, variable in placeholders()
    ]
    lines += view.notices()  # what Home shows too
    if view.dangling is not None:
        region, name = view.dangling
        lines.append(
            _(
                "warning: the managed provider points at account {name} ({region}), which has no sign-in here; "
                "nothing was changed: `assistant-auth login --account {name} --region {region}`, or "
                "`assistant-auth switch` to another account."
            ).format(name=name, region=region)
        )
    lines += [line.said() for region in Region for line in odd(region)]  # never used by a sign-in
    for name, host in view.missing_hosts.items():
        lines.append(
            _(
                "note: provider {provider} names no oauth host in config.toml; its key was made for {host}, "
                "which is used. Write it back as oauthHost (assistant-auth config)."
            ).format(provider=one_line(name, 80), host=one_line(host))
        )
    return lines
