"""What `status` on a server shows of the agent's slots: each slot's state as the person's own
machine sees it, never a token (the fields of `status --json` that say nothing secret)."""

from __future__ import annotations

from tui.core.overview import overview

SHOWN = ("name", "state", "usable", "refresh_rejected", "has_refresh_token", "expires_at", "identity", "region")


def slots() -> dict[str, object]:
    """{"default": the slot `token` uses without a selector, "slots": [each slot's state]}."""
    view = overview()
    listed = view.with_regions()
    if view.default_slot not in [s.name for s in listed]:
        listed.insert(0, view.slot(view.default_slot))
    return {
        "default": view.default_slot,
        "slots": [{name: s.to_dict()[name] for name in SHOWN} for s in listed],
    }
