"""The agent's slot listing (its `status` answer), read on a server the way `status` reads this
machine's files: which slot a selector means, the accounts among the slots and the active one.
Pure: the listing is parsed once (`listed`), the rules below take it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tui.core.errors import Problem
from tui.core.slots.accounts import account_order
from tui.core.slots.lookup import account_region
from tui.core.slots.selector import Selector
from tui.core.spec.keys import account_of_slot, named_account_label

ACCOUNT_FIELDS = ("state", "usable", "identity", "expires_at")  # an account entry's fields from its slot's


def listed(answer: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """(the slots the agent listed: each a dict with a string name, the default slot's name)."""
    slots = [s for s in answer.get("slots") or [] if isinstance(s, dict) and isinstance(s.get("name"), str)]
    default = answer.get("default")
    return slots, default if isinstance(default, str) else ""


def selected(slots: list[dict[str, Any]], selector: Selector, default: str) -> tuple[dict[str, Any] | None, str | None]:
    """(the slot `selector` means among `slots`, or None when a region or default is not listed;
    the `Problem` of an account, a slot or a provider that is not there, or an account in both
    regions with none said)."""
    if selector.provider is not None and any("providers" in s for s in slots):  # an agent that lists them
        using = next((s for s in slots if selector.provider in (s.get("providers") or [])), None)
        return (using, None) if using is not None else (None, Problem.UNKNOWN_PROVIDER)
    if selector.slot is not None:  # a named slot with no file is unknown, as `token` finds it (`failure_kind`)
        listed = next((s for s in slots if s["name"] == selector.slot and s.get("state") != "missing"), None)
        return (listed, None) if listed is not None else (None, Problem.UNKNOWN_SLOT)
    region = selector.region_word
    if selector.account is not None:  # a named account (with its region when both have it), as the slots name it
        found = {
            named.region: s
            for s in slots
            if (named := account_of_slot(s["name"])) is not None
            and named.name == selector.account
            and s.get("state") != "missing"
        }
        chosen, problem = account_region(list(found), region)  # the files' rule (`lookup.find`)
        return (found[chosen], None) if chosen is not None else (None, problem)
    if region is not None:  # the region's own slot, not a named account of it
        own = (s for s in slots if s.get("region") == region and named_account_label(s["name"]) is None)
        return next(own, None), None
    return next((s for s in slots if s["name"] == default), None), None


def accounts(slots: list[dict[str, Any]], default: str) -> list[dict[str, Any]]:
    """`status --json`'s `accounts` from the listing, as this machine's files give them (name,
    region, active, slot and the slot's state): by region, the default first, then by name."""
    found = []
    for s in slots:
        named = account_of_slot(s["name"])
        if named is None or s.get("state") == "missing":
            continue
        entry: dict[str, Any] = {"name": named.name, "region": named.region, "active": s["name"] == default}
        entry["slot"] = s["name"]
        entry.update({field: s.get(field) for field in ACCOUNT_FIELDS})
        found.append(entry)
    return sorted(found, key=lambda a: account_order(a["region"], a["name"]))


def managed_account(slots: list[dict[str, Any]], default: str) -> dict[str, Any] | None:
    """`status --json`'s `managed_account`: the account the agent's managed provider names (exists
    false when it has no file there), None when the default slot is no account."""
    named = account_of_slot(default) if default else None
    if named is None:
        return None
    exists = any(s["name"] == default and s.get("state") != "missing" for s in slots)
    return {"name": named.name, "region": named.region, "exists": exists}
