"""config.toml and the credentials it points at: the managed provider, its slot, host and region."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from tui.core.agent.served import Served
from tui.core.agent.source import signs_in_here
from tui.core.agent.wire.naming import SOCKET_ENV
from tui.core.config.edit import edit_provider
from tui.core.config.guard import config_edit
from tui.core.config.provider import write_config_text
from tui.core.config.read import (
    holds_secret,
    parse_config_readonly,
    read_config_raw,
    read_config_readonly,
    read_config_text,
    untrusted_because,
)
from tui.core.config.restore import backup_path, restore_offer
from tui.core.credentials.refresh import refresh_access_token
from tui.core.credentials.repairs import CHANGED, NotDone, Repair, fix_mode, seen
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.doctor.models import check_models
from tui.core.errors import AuthError
from tui.core.files.access import give_back_step
from tui.core.person.overview import Overview
from tui.core.slots.accounts import accounts_in
from tui.core.slots.advice import next_step, sign_in_or_switch
from tui.core.slots.choice import inferred_hosts, provider_selection, storage_name_of
from tui.core.spec import paths, settings
from tui.core.spec.keys import MANAGED_PROVIDER, account_of_slot, made_for, ref_fields
from tui.core.spec.regions import Region
from tui.core.spec.settings import REGIONS
from tui.core.text.phrase import N_, Phrase

if TYPE_CHECKING:
    import httpx

from tui.core.slots.state import (
    MISSING,
    OUR_DETAILS,
    REVOKED,
    VALID,
    SlotStatus,
    list_slots,
    signed_in_phrase,
    slot_title,
)
from tui.core.slots.switch import mend_managed


def _restore_host(name: str, host: str) -> Repair:
    def apply() -> str:
        with config_edit():  # read, re-check and write under config.toml's lock: no switch lands between
            previous = read_config_text()
            config = parse_config_readonly(previous)
            if inferred_hosts(config).get(name) != host:  # the reported fact, re-checked on the text written over
                raise NotDone(
                    Phrase(
                        N_("{path}: the oauth table of {table} {changed}"),
                        path=paths.config_path(),
                        table=f'[providers."{name}"]',
                        changed=CHANGED,
                    )
                )
            write_config_text(edit_provider(previous, name, {"oauth_host": host}), previous=previous)
        return Phrase(
            N_("wrote {setting} into {table}"), setting=f'oauthHost = "{host}"', table=f'[providers."{name}"].oauth'
        )

    change = Phrase(
        N_("add {setting} to the oauth table of {table} in {path} (nothing else in the file changes)"),
        setting=f'oauthHost = "{host}"',
        table=f'[providers."{name}"]',
        path=paths.config_path(),
    )
    return Repair(change, apply)


def check_config() -> list[Check]:
    """config.toml parses, is private, and its managed provider names a slot, host and region
    that agree: one finding each."""
    path = paths.config_path()
    try:
        if read_config_raw() is None:
            finding = Phrase(N_("No {path} yet (signing in creates it)."), path=path)
            return [Check("config.parse", OK, finding, "", {"path": str(path)})]
        config = read_config_readonly()
    except AuthError as exc:
        restore = restore_offer(path)
        if restore is not None:
            offer = Phrase(
                N_(
                    "Restore the copy from before the provider editor's save at {saved} ({backup}), or fix {path} by hand."
                ),
                saved=restore.saved,
                backup=backup_path(path),
                path=path,
            )
            return [Check("config.parse", FAIL, exc.message + ".", offer, {"path": str(path)}, repair=restore.repair())]
        hint = exc.hint or Phrase(N_("Fix {path} by hand."), path=path)
        return [Check("config.parse", FAIL, exc.message + ".", hint, {"path": str(path)})]
    parses = Check("config.parse", OK, Phrase(N_("{path} parses."), path=path), "", {"path": str(path)})
    checks = [parses, check_config_mode(config), *check_models(config)]
    providers = config.get("providers")
    entry = providers.get(MANAGED_PROVIDER) if isinstance(providers, dict) else None
    if not isinstance(entry, dict):
        hint = Phrase(N_("Sign in (`assistant-auth login`) to create it."))
        finding = Phrase(N_("No {table} entry."), table=f'[providers."{MANAGED_PROVIDER}"]')
        return [*checks, Check("config.managed", WARN, finding, hint, {})]
    managed = _managed_slot(config)
    checks.append(managed)
    if "slot" not in managed.details:  # the entry names no slot: nothing more to compare
        return checks
    host = _oauth_host(config, entry)
    return [*checks, *([host] if host else []), _base_url(entry, managed.details["slot"])]


def _managed_slot(config: dict[str, Any]) -> Check:
    """The managed provider names a slot, and that slot has a credential file."""
    try:
        slot = storage_name_of(provider_selection(MANAGED_PROVIDER, config))
    except AuthError as exc:
        hint = exc.hint or Phrase(N_("Sign in again to rewrite it."))
        return Check("config.managed", FAIL, f"{MANAGED_PROVIDER}: {exc.message}.", hint, {})
    if paths.credentials_path(slot).exists():
        finding = Phrase(
            N_("{provider} uses the slot {slot}, which exists."), provider=MANAGED_PROVIDER, slot=slot_title(slot, 40)
        )
        return Check("config.managed", OK, finding, "", {"slot": slot})
    finding = Phrase(
        N_("{provider} uses the slot {slot}, which has no credential file."),
        provider=MANAGED_PROVIDER,
        slot=slot_title(slot, 40),
    )
    return Check(
        "config.managed", FAIL, finding, sign_in_or_switch(slot, accounts_in(list_slots(), slot)), {"slot": slot}
    )


def _oauth_host(config: dict[str, Any], entry: dict[str, Any]) -> Check | None:
    """The entry's oauthHost is the one its key was made for (written back when a rewrite by the
    official client dropped it); None when the entry names neither."""
    base = str(entry.get("base_url", "")).rstrip("/")
    inferred = inferred_hosts(config).get(MANAGED_PROVIDER)
    if inferred:
        finding = Phrase(
            N_("{provider} names no oauthHost; its key was made for {host} (an official-client rewrite drops it)."),
            provider=MANAGED_PROVIDER,
            host=inferred,
        )
        repair = _restore_host(MANAGED_PROVIDER, inferred)
        hint = Phrase(N_("Write the host back."))
        return Check("config.oauth_host", WARN, finding, hint, {"host": inferred}, repair=repair)
    fields = ref_fields(entry.get("oauth"))
    if fields is None or fields[1] is None:
        return None
    key, host = fields
    if host is not None and key is not None and not made_for(key, host, base):
        finding = Phrase(
            N_("{provider}: its key {key} was not made for oauthHost {host} and base_url {base}."),
            provider=MANAGED_PROVIDER,
            key=key,
            host=host,
            base=base,
        )
        hint = _rewrite_hint(key)
        return Check("config.oauth_host", FAIL, finding, hint, {"host": host, "key": key})
    finding = Phrase(N_("{provider}: oauthHost {host} matches its key."), provider=MANAGED_PROVIDER, host=host)
    return Check("config.oauth_host", OK, finding, "", {"host": host})


def _rewrite_hint(key: str) -> Phrase:
    """What rewrites an entry whose key and host disagree: a switch back to a named account (its
    key names it), else a sign-in in the right region."""
    named = account_of_slot(key.strip().removeprefix("oauth/"))
    if named is not None and not named.is_default:
        return Phrase(
            N_("Switch to the account again: assistant-auth switch {name} --region {region} (it rewrites the entry)."),
            name=named.name,
            region=named.region,
        )
    return Phrase(N_("Sign in again in the right region: it rewrites the entry."))


def _base_url(entry: dict[str, Any], slot: str) -> Check:
    """The entry's base_url is the API of the region whose tokens its slot holds (another
    region's API would be sent this region's tokens by the official client)."""
    base = str(entry.get("base_url", "")).rstrip("/")
    regions = {settings.base_url(r).rstrip("/"): r for r in REGIONS}
    named = account_of_slot(slot)
    if base in regions and named is not None and regions[base] != named.region:
        finding = Phrase(
            N_(
                "{provider}: base_url is the {api} API, but its key and tokens are {region}'s: the official client "
                "would send {region}'s tokens to the {api} API."
            ),
            provider=MANAGED_PROVIDER,
            api=regions[base],
            region=named.region,
        )
        command = "assistant-auth switch " + ("" if named.is_default else f"{named.name} ") + f"--region {named.region}"
        hint = Phrase(
            N_("`{command}` sets its base_url and host back to {region}'s (nothing else changes)."),
            command=command,
            region=named.region,
        )
        change = Phrase(
            N_("point {provider} at the {region} API again ({command})"),
            provider=MANAGED_PROVIDER,
            region=named.region,
            command=command,
        )
        repair = Repair(change, lambda: mend_managed(Region(named.region), named.name, base))
        return Check(
            "config.base_url",
            FAIL,
            finding,
            hint,
            {"region": regions[base], "slot_region": named.region},
            repair=repair,
        )
    if base in regions:
        finding = Phrase(
            N_("{provider}: base_url is the {region} API."), provider=MANAGED_PROVIDER, region=regions[base]
        )
        return Check("config.base_url", OK, finding, "", {"region": regions[base]})
    finding = Phrase(
        N_("{provider}: base_url {base} is neither region's API."),
        provider=MANAGED_PROVIDER,
        base=base or Phrase(N_("(none)")),
    )
    hint = Phrase(N_("Sign in again, or check ASSISTANT_BASE_URL_CN / _GLOBAL."))
    return Check("config.base_url", WARN, finding, hint, {"base_url": base})


def check_config_mode(config: dict[str, Any]) -> Check:
    """config.toml chooses the host that receives refresh tokens: others must not write it (a
    failure: refresh tokens are refused for hosts it names), nor read it when it holds an api_key."""
    path = paths.config_file()
    found = seen(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        finding = Phrase(N_("{path} cannot be examined ({reason})."), path=path, reason=exc.strerror or exc)
        return Check("config.mode", FAIL, finding, "", {"path": path})
    mode = info.st_mode & 0o777
    details = {"path": path, "mode": f"{mode:04o}"}
    secret = holds_secret(config)
    wanted = mode & ~(0o077 if secret else 0o022)
    ours = found if found is not None and not found.is_link and info.st_uid == os.getuid() else None

    def fixing(target: int) -> Repair | None:
        if ours is None:
            return None
        change = Phrase(N_("chmod {mode} {path} (now {now})"), mode=f"{target:04o}", path=path, now=f"{mode:04o}")
        return Repair(change, lambda: fix_mode(ours, target))

    problem = untrusted_because(info, path)
    if problem:
        finding = Phrase(N_("{problem}: no refresh token is sent to a host it names."), problem=problem)
        if info.st_uid != os.getuid():
            hint = give_back_step()
            return Check("config.mode", FAIL, finding, hint, details)
        if not mode & 0o022:  # the directory is the trouble: files.config_dir repairs it
            return Check(
                "config.mode", FAIL, finding, Phrase(N_("chmod 700 {path}."), path=os.path.dirname(path)), details
            )
        return Check(
            "config.mode", FAIL, finding, Phrase(N_("chmod go-w {path}."), path=path), details, repair=fixing(wanted)
        )
    shown_mode = f"{mode:04o}"
    if mode & 0o044 and secret:
        finding = Phrase(
            N_("Others can read {path} (mode {mode}), which holds an api_key."), path=path, mode=shown_mode
        )
        return Check(
            "config.mode", FAIL, finding, Phrase(N_("chmod 600 {path}."), path=path), details, repair=fixing(wanted)
        )
    if mode & 0o044:
        finding = Phrase(N_("Others can read {path} (mode {mode})."), path=path, mode=shown_mode)
        return Check(
            "config.mode", WARN, finding, Phrase(N_("chmod 600 {path}."), path=path), details, repair=fixing(0o600)
        )
    finding = Phrase(N_("{path} is yours and private ({mode})."), path=path, mode=shown_mode)
    return Check("config.mode", OK, finding, "", details)


def check_credentials(view: Overview, found: Served | None = None) -> list[Check]:
    """Each slot: valid, expired but refreshable, no refresh token, revoked or unreadable; who. No
    slot at all: sign in, except where this machine's tokens come from the token agent on the
    person's own machine (`signs_in_here`, with `found`, what `source.served` said already): nothing
    to sign in to here."""
    checks = [check for status in view.slots if (check := _slot_check(status, view.managed)) is not None]
    if checks:
        return checks
    if not signs_in_here(found=found):  # the one predicate: a server the agent serves keeps no sign-in of its own
        finding = Phrase(
            N_(
                "No credentials on this machine: its tokens come from the token agent on your own machine ({variable})."
            ),
            variable=SOCKET_ENV,
        )
        return [Check("credentials", OK, finding, "", {"served_from": "agent"})]
    hint = Phrase(N_("Sign in: `assistant-auth login`."))
    return [Check("credentials", WARN, Phrase(N_("No credentials yet.")), hint, {})]


def _slot_check(status: SlotStatus, managed: str | None) -> Check | None:
    """One slot's finding (None for a slot with no file): trouble in the managed provider's slot
    is a failure, in another slot a warning."""
    name = f"credentials.{status.name}"
    details = {"slot": status.name, "region": status.region, "identity": status.identity, "state": status.state}
    title = slot_title(status.name)
    label = Phrase(N_("{slot} (the managed provider's)"), slot=title) if status.name == managed else title
    serious = FAIL if status.name == managed else WARN
    again = next_step(status)  # the sign-in of this slot, its region and account: never a plain `login`
    who = signed_in_phrase(status)
    if status.state == VALID:
        return Check(
            name,
            OK,
            Phrase(N_("{slot}: {who}, {expiry}."), slot=label, who=who, expiry=expiry_text(status.expires_in())),
            "",
            details,
        )
    if status.usable:
        return Check(
            name, OK, Phrase(N_("{slot}: {who}, expired; refreshes on next use."), slot=label, who=who), "", details
        )
    if status.refresh_rejected:
        finding = Phrase(N_("{slot}: expired, and the server rejected its refresh token."), slot=label)
        return Check(name, serious, finding, again, details)
    if status.state == REVOKED:
        finding = Phrase(N_("{slot}: signed out (revoked) by the official client."), slot=label)
        return Check(name, serious, finding, again, details)
    if status.has_expiry:
        finding = Phrase(N_("{slot}: expired and no refresh token."), slot=label)
        return Check(name, serious, finding, again, details)
    if status.state == MISSING:
        return None
    finding = Phrase(N_("{slot}: {state} ({detail})."), slot=label, state=status.label_phrase, detail=_detail(status))
    return Check(name, serious, finding, again, details)


def _detail(status: SlotStatus) -> str:
    """The slot's detail: ours as a phrase, a parser's or the system's words as they came."""
    if isinstance(status.detail, Phrase):
        return status.detail
    return Phrase(status.detail) if status.detail in OUR_DETAILS else status.detail[:120]


def expiry_text(left: float | None) -> str:
    if left is None:
        return Phrase(N_("no expiry recorded"))
    minutes = int(left // 60)
    if minutes < 120:
        return Phrase(N_("expires in {n} min"), n=minutes)
    return Phrase(N_("expires in {n} h"), n=minutes // 60)


async def probe_refresh(client: httpx.AsyncClient | None = None) -> Check:
    """--probe: refresh the managed slot (spends one refresh token; the new one is stored)."""
    try:
        selection = provider_selection(MANAGED_PROVIDER)
        slot = storage_name_of(selection)
        await refresh_access_token(selection.ref, selection.base_url, client=client, refuse=selection.refusal)
    except AuthError as exc:
        finding = Phrase(N_("Refreshing {provider} failed: {error}"), provider=MANAGED_PROVIDER, error=exc.message)
        return Check("probe.refresh", FAIL, finding, exc.hint, {})
    return Check(
        "probe.refresh",
        OK,
        Phrase(
            N_("Refreshed {slot} ({provider}): the server accepted the refresh token."),
            slot=slot_title(slot, 40),
            provider=MANAGED_PROVIDER,
        ),
        "",
        {"slot": slot},
    )
