"""Which region the managed provider uses, and switching it without signing in again.

config.toml is shared with the official client, so a switch moves both tools to that account.
"""

from __future__ import annotations

from tui.core.config.kept import kept_note
from tui.core.config.provider import NotAsDecided, provision_managed_provider
from tui.core.config.read import parse_config_readonly, read_config_readonly
from tui.core.credentials.repairs import CHANGED, NotDone
from tui.core.errors import AuthError
from tui.core.slots.advice import next_step
from tui.core.slots.choice import managed_slot
from tui.core.slots.state import EXPIRED, MISSING, REVOKED, slot_status
from tui.core.spec.keys import (
    DEFAULT_ACCOUNT,
    MANAGED_PROVIDER,
    AccountRef,
    account_key,
    account_of_slot,
    account_slot,
)
from tui.core.spec.region_endpoints import endpoints
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.phrase import N_, Phrase, said
from tui.core.text.untrusted import one_line

CHANGED_WHILE_SWITCHING = N_("config.toml changed while it was being switched; nothing was written: switch again")


def managed_region() -> Region | None:
    """The region whose slot the managed provider uses, if it is a region's slot."""
    name = managed_slot()
    named = account_of_slot(name) if name is not None else None
    return Region(named.region) if named is not None and named.is_default else None


def switch_region(region: Region) -> str:
    """Point `managed:assistant-code` at `region`'s slot (its default account); returns a
    one-line confirmation.

    Only a slot with usable credentials (valid, or expired with a refresh token) is switched to;
    a missing, revoked or broken one is refused with what to do instead. AuthError otherwise.
    """
    return switch_account(region, DEFAULT_ACCOUNT)


def switch_account(region: Region, name: str, *, only_from: str | None = None) -> str:
    """Point `managed:assistant-code` at account `name` of `region`: its slot's key and the
    region's base URL and host, nothing else of config.toml, never a credential file. Returns a
    one-line confirmation; AuthError when that account cannot be used (said how to sign in).
    `only_from`: switch only while the managed provider still uses that slot, as read under
    config.toml's lock (NotAsDecided otherwise: a switch made meanwhile stands)."""
    slot = account_slot(region, name)
    named = name != DEFAULT_ACCOUNT
    label = AccountRef(region.value, name).label if named else region.value
    if managed_slot() == slot:
        try:
            mended = _mend_if_elsewhere(region, name, label)
        except NotAsDecided:
            raise AuthError(CHANGED_WHILE_SWITCHING) from None
        if mended:
            return mended
        if named:
            return _("The managed provider already uses account {account}.").format(account=label)
        return _("The managed provider already uses {region}.").format(region=region.value)
    status = slot_status(slot)
    if not status.usable:
        flag = f" --account {name}" if named else ""
        first = Phrase(
            N_("Sign in there first: assistant-auth login{flag} --region {region}"), flag=flag, region=region.value
        )
        raise AuthError(
            f"Cannot switch to {label}: its slot {status.name} is {str(status.label_phrase)}",  # English: str of the Phrase
            # a file that must be repaired first (another owner's, a dangling link, a broken one) says how
            first if status.state in (MISSING, REVOKED, EXPIRED) else next_step(status),
        )
    premise = None if only_from is None else (lambda text: managed_slot(text) == only_from)
    copy = provision_managed_provider(account_key(region, name), region, only_if=premise)
    kept = "" if copy is None else " " + said(kept_note(copy))
    if named and status.identity:
        text = _(
            "The managed provider now uses account {account} ({who}); the official client follows "
            "this switch too (config.toml is shared)."
        )
    elif named:
        text = _(
            "The managed provider now uses account {account}; the official client follows this switch "
            "too (config.toml is shared)."
        )
    elif status.identity:
        text = _(
            "The managed provider now uses {region} ({who}); the official client follows this "
            "switch too (config.toml is shared)."
        )
    else:
        text = _(
            "The managed provider now uses {region}; the official client follows this switch too (config.toml is shared)."
        )
    return text.format(region=region.value, who=status.identity, account=label) + kept


def _managed_base() -> str | None:
    """The managed provider's base_url as config.toml says it now, None without one."""
    try:
        providers = read_config_readonly().get("providers")
    except AuthError:
        return None
    return _base_in(providers)


def _base_of(text: str) -> str | None:
    """The same, of config.toml's `text` as read under its lock."""
    try:
        providers = parse_config_readonly(text).get("providers")
    except AuthError:
        return None
    return _base_in(providers)


def _base_in(providers: object) -> str | None:
    entry = providers.get(MANAGED_PROVIDER) if isinstance(providers, dict) else None
    base = entry.get("base_url") if isinstance(entry, dict) else None
    return base.rstrip("/") if isinstance(base, str) else None


def _mend_if_elsewhere(region: Region, name: str, label: str) -> str | None:
    """The managed provider names this account's slot but another region's API (a backup of
    config.toml from the other region, a hand edit): its region's fields are written again, only
    while config.toml (read again under its lock) still says so."""
    base = _managed_base()
    if base is None or base == endpoints(region).base_url.rstrip("/"):
        return None
    slot = account_slot(region, name)

    def still(text: str) -> bool:
        return managed_slot(text) == slot and _base_of(text) == base

    provision_managed_provider(account_key(region, name), region, only_if=still)  # NotAsDecided: changed
    return _(
        "The managed provider used {account}'s tokens with another API ({base}): its base_url and host "
        "are {region}'s again (nothing else changed)."
    ).format(account=label, base=one_line(base, 200), region=region.value)


def mend_managed(region: Region, name: str, seen_base: str) -> str:
    """doctor's repair of the same: only while the entry still names this account's slot and the
    base_url reported (else nothing is done)."""
    changed = NotDone(Phrase(N_("config.toml {changed}"), changed=CHANGED))
    if managed_slot() != account_slot(region, name) or _managed_base() != seen_base:
        raise changed
    label = f"{name} ({region.value})" if name != DEFAULT_ACCOUNT else region.value
    try:
        return _mend_if_elsewhere(region, name, label) or _("nothing to change")
    except NotAsDecided:
        raise changed from None
