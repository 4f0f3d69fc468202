"""Which region the managed provider uses, and switching it without signing in again.

config.toml is shared with the official client, so a switch moves both tools to that account.
"""

from __future__ import annotations

from tui.core.config.provider import provision_managed_provider
from tui.core.errors import AuthError
from tui.core.i18n import _
from tui.core.keys import (
    region_key,
    region_of_slot,
    region_storage_name,
)
from tui.core.phrase import N_, Phrase
from tui.core.regions import Region
from tui.core.slots.choice import managed_slot
from tui.core.slots.state import slot_status


def managed_region() -> Region | None:
    """The region whose slot the managed provider uses, if it is a region's slot."""
    name = managed_slot()
    region = region_of_slot(name) if name is not None else None
    return Region(region) if region else None


def switch_region(region: Region) -> str:
    """Point `managed:assistant-code` at `region`'s slot; returns a one-line confirmation.

    Only a slot with usable credentials (valid, or expired with a refresh token) is switched to;
    a missing, revoked or broken one is refused with what to do instead. AuthError otherwise.
    """
    if managed_slot() == region_storage_name(region):
        return _("The managed provider already uses {region}.").format(region=region.value)
    status = slot_status(region_storage_name(region))
    if not status.usable:
        raise AuthError(
            f"Cannot switch to {region.value}: its slot {status.name} is {str(status.label_phrase)}",  # English: str of the Phrase
            Phrase(N_("Sign in there first: assistant-auth login --region {region}"), region=region.value),
        )
    provision_managed_provider(region_key(region), region)
    if status.identity:
        text = _(
            "The managed provider now uses {region} ({who}); the official client follows this "
            "switch too (config.toml is shared)."
        )
    else:
        text = _(
            "The managed provider now uses {region}; the official client follows this switch too (config.toml is shared)."
        )
    return text.format(region=region.value, who=status.identity)
