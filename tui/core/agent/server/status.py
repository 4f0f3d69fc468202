"""What `status` on a server shows of the agent's slots: each slot's state as the person's own
machine sees it, never a token (the fields of `status --json` that say nothing secret)."""

from __future__ import annotations

from tui.core.person.overview import overview

SHOWN = ("name", "state", "usable", "refresh_rejected", "has_refresh_token", "expires_at", "identity", "region")


def slots() -> dict[str, object]:
    """{"default": the slot `token` uses without a selector, "slots": [each slot's state, and the
    providers of config.toml that use it: a server's `status --provider NAME` finds it as
    `token --provider NAME` does]}."""
    view = overview()
    listed = view.with_regions()
    names = [s.name for s in listed]
    for wanted in [view.default_slot, *view.users]:  # the default, and every provider's slot, even without a file
        if wanted not in names:
            listed.insert(0, view.slot(wanted))
            names.insert(0, wanted)
    return {
        "default": view.default_slot,
        "slots": [
            {**{name: s.to_dict()[name] for name in SHOWN}, "providers": view.users.get(s.name, [])} for s in listed
        ],
    }
