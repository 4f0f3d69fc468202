"""Which credential slot a command means: a provider of config.toml, explicit flags, or the default.

Reads config.toml through `tui.core.config.read`: the fast scanner first (the `token` path), else
the standard library's `tomllib`; never tomlkit.
"""

from __future__ import annotations

from tui.core.config.read import (
    config_or_empty,
    config_text_and_problem,
    config_trust_problem,
    decode_config,
    parse_config_readonly,
    read_config_trusted,
    scan_managed_provider,
)
from tui.core.errors import AuthError, Problem
from tui.core.spec import paths, settings
from tui.core.spec.keys import MANAGED_PROVIDER, context_fields

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping
    from typing import Any

    from tui.core.slots.selector import Selector
    from tui.core.spec.context import OAuthRef
    from tui.core.spec.regions import Region


class Selection:
    """A slot to use: the OAuth reference (a mapping or None), the API base and a label."""

    __slots__ = ("ref", "base_url", "label", "inferred_host", "refusal")

    def __init__(
        self,
        ref: OAuthRef | Mapping[str, Any] | None,
        base_url: str,
        label: str,
        inferred_host: str | None = None,
        refusal: AuthError | None = None,
    ) -> None:
        self.ref = ref
        self.base_url = base_url
        self.label = label  # for messages: "provider NAME", "the default slot", ...
        self.inferred_host = inferred_host  # set when config.toml lacks the host its key was made for
        # set when the refresh host was read from a config.toml that others can write (or that is
        # not yours): no refresh token is sent there (the token functions take it as `refuse`)
        self.refusal = refusal

    def __repr__(self) -> str:
        return f"Selection(ref={self.ref!r}, base_url={self.base_url!r}, label={self.label!r})"


def storage_name_of(selection: Selection) -> str:
    """The credential slot (storage name) a selection resolves to (spec 4.5): the rule itself, as
    `resolve_context` applies it, without building its records (Home's first frame and `token`)."""
    return context_fields(selection.ref, selection.base_url)[1]


def explain_for(exc: AuthError, selection: Selection | None, selector: Selector | None = None) -> AuthError:
    """Add a line naming the provider to an invalid-key refusal (the spec's text stays first); a
    slot named by `selector` (`--slot`) that has no file is an unknown slot (`failure_kind`)."""
    if selector is not None and selector.failure_kind(exc.kind) != exc.kind:
        exc.kind = selector.failure_kind(exc.kind)
        from tui.core.text.phrase import N_, Phrase  # lazy: the failure path only

        exc.hint = Phrase(N_("No slot named {slot} here: `assistant-auth status` lists the slots."), slot=selector.slot)
    if selection is not None and not exc.hint and exc.kind == Problem.INVALID_KEY:
        exc.hint = (
            f"{selection.label}: its oauth key is not a valid slot name and its oauthHost is not the "
            "default slot's host, so no token is sent there. Fix the key with `assistant-auth config`."
        )
    return exc


def provider_selection(name: str, config: dict[str, Any] | None = None, untrusted: str | None = None) -> Selection:
    """The slot provider `name` uses. `config`: config.toml already parsed by the caller, and
    `untrusted` why that file may not choose a refresh host (else both are read here)."""
    if config is None:
        raw, untrusted = read_config_trusted()
        config = parse_config_readonly(decode_config(raw or b""))
    providers = config.get("providers")
    entry = providers.get(name) if isinstance(providers, dict) else None
    if not isinstance(entry, dict):
        raise AuthError(f"No provider named {name!r} in {paths.config_file()}", kind=Problem.UNKNOWN_PROVIDER)
    base = entry.get("base_url")
    return provider_entry_selection(
        entry.get("oauth"), base if isinstance(base, str) else "", f"provider {name}", untrusted
    )


def provider_entry_selection(oauth: object, base_url: str, label: str, untrusted: str | None = None) -> Selection:
    """A provider's `oauth` table (either host spelling) and base as a Selection, with the host
    inferred from a scoped key when the table names none (README: a deliberate deviation).
    A host the table names, from a file others can write, is refused (`Selection.refusal`)."""
    from tui.core.spec.keys import provider_ref, ref_fields  # lazy: off token's path

    table = oauth if isinstance(oauth, dict) else None
    ref, inferred = provider_ref(table, base_url)
    fields = ref_fields(table)
    named = fields[1] if fields is not None else None
    refusal = None
    if untrusted and named:
        refusal = AuthError(
            f"Refusing to send a refresh token to {named.strip()}: {label} takes that host from "
            f"{paths.config_file()}, and {untrusted}",
            f"Only a config.toml that is yours and that no one else can write may choose where tokens go: "
            f"`chmod go-w {paths.config_file()}` (and its directory), or `assistant-auth doctor --fix`.",
        )
    return Selection(ref, base_url, label, inferred, refusal)


def select_for(selector: Selector) -> Selection:
    """The slot `selector` means (`select` by its flags): every command, the token service and the
    source ask this, never unpacking the selector themselves."""
    return select(**selector.given())


def select(
    provider: str | None = None,
    base_url: str | None = None,
    key: str | None = None,
    oauth_host: str | None = None,
    slot: str | None = None,
    region: str | None = None,
    account: str | None = None,
) -> Selection:
    """The slot a command means: a provider, an account (in a region), a slot by name, a region's
    slot, explicit key and hosts, else the managed provider of config.toml, else the default slot."""
    if account:
        from tui.core.slots.lookup import find  # lazy: only with --account

        return account_selection(find(account, region.strip().lower() if region else None), account)
    if provider:
        return provider_selection(provider)
    if slot:
        from tui.core.spec.keys import resolve_storage_name  # lazy: off token's path

        return selection_for_slot(resolve_storage_name(slot))
    if region:
        from tui.core.spec.keys import region_storage_name  # lazy: off token's path

        return selection_for_slot(region_storage_name(region.strip().lower()))
    if base_url is not None or key or oauth_host:
        ref = {"key": key, "oauthHost": oauth_host} if (key or oauth_host) else None
        return Selection(ref, base_url or settings.base_url("cn"), "the selected slot")
    try:
        raw, untrusted = read_config_trusted()  # one read; its fstat says who may write the file
        text = decode_config(raw or b"")
    except AuthError as exc:  # which account is active cannot be read: never a guess (another's token)
        raise _cannot_tell(exc) from None
    managed = managed_selection(text, untrusted)
    if managed is None and MANAGED_PROVIDER in text and scan_managed_provider(text) is None:
        try:
            parse_config_readonly(text)
        except AuthError as exc:  # the managed provider is there, in a file that does not parse
            raise _cannot_tell(exc) from None
    return managed if managed is not None else Selection(None, settings.base_url("cn"), "the default slot")


def _cannot_tell(exc: AuthError) -> AuthError:
    """config.toml names the active account, and it cannot be read: the token of whichever slot
    would otherwise be used may be another account's, so none is handed out unless one is named."""
    return AuthError(
        f"{exc.message}; it says which account is active, so no token is handed out until it can be read "
        "or the account is named (--account NAME, --region cn|global or --slot NAME)",
        exc.hint,
        kind=Problem.CONFIG,
    )


def managed_selection(text: str, untrusted: str | None = None) -> Selection | None:
    """The managed provider of config.toml's `text`, read as `token` reads it: the fast scanner,
    else tomllib. None without that entry, or when the file does not parse."""
    if MANAGED_PROVIDER not in text:
        return None
    fast = scan_managed_provider(text)
    if fast is not None:
        return provider_entry_selection(fast[0], fast[1], f"provider {MANAGED_PROVIDER}", untrusted)
    try:
        config = parse_config_readonly(text)  # the text read by the caller: the file is read once
    except AuthError:
        return None
    providers = config.get("providers")
    if isinstance(providers, dict) and isinstance(providers.get(MANAGED_PROVIDER), dict):
        return provider_selection(MANAGED_PROVIDER, config, untrusted)
    return None


def managed_slot(text: str | None = None) -> str | None:
    """The slot `managed:assistant-code` resolves to, read as `token` reads it (so Home's and
    `status`'s "used by the managed provider and `token`" is true by construction), or None when
    config.toml has no such entry or cannot be read. `text`: config.toml as the caller read it."""
    if text is None:
        text, _problem = config_text_and_problem()  # unreadable: "", no managed provider
    try:
        chosen = managed_selection(text)
        return storage_name_of(chosen) if chosen is not None else None
    except AuthError:
        return None


def oauth_providers(config: dict[str, Any] | None = None) -> list[tuple[str, Selection]]:
    """(name, Selection) of every provider of config.toml with an `oauth` table, in file order."""
    config = config_or_empty() if config is None else config
    providers = config.get("providers")
    found = []
    for name, entry in providers.items() if isinstance(providers, dict) else ():
        if isinstance(entry, dict) and isinstance(entry.get("oauth"), dict):
            base = entry.get("base_url")
            base = base if isinstance(base, str) else ""
            found.append((str(name), provider_entry_selection(entry["oauth"], base, f"provider {name}")))
    return found


def providers_by_slot(config: dict[str, Any] | None = None) -> dict[str, list[str]]:
    """storage_name -> names of the providers (with an `oauth` block) that resolve to it."""
    found: dict[str, list[str]] = {}
    for name, chosen in oauth_providers(config):
        found.setdefault(storage_name_of(chosen), []).append(name)
    return found


def inferred_hosts(config: dict[str, Any] | None = None) -> dict[str, str]:
    """provider name -> the host its scoped key was made for, for providers whose `oauth` table
    names no host (status and the inspector report them so the host can be written back)."""
    return {name: chosen.inferred_host for name, chosen in oauth_providers(config) if chosen.inferred_host}


def selection_for_slot(storage_name: str) -> Selection:
    """How to refresh a slot found on disk: a provider that uses it, else the region it belongs
    to, else its own key against the cn host."""
    from tui.core.spec.context import OAuthRef  # lazy: off token's path
    from tui.core.spec.keys import DEFAULT_STORAGE_NAME, account_of_slot, region_storage_name  # lazy: off token's path
    from tui.core.spec.region_endpoints import endpoints  # lazy: off token's path
    from tui.core.spec.regions import Region  # lazy: off token's path

    config = config_or_empty()  # read and parsed once for both lookups
    users = providers_by_slot(config)
    if users.get(storage_name):
        return provider_selection(users[storage_name][0], config, config_trust_problem())
    for region in (Region.CN, Region.GLOBAL):
        if region_storage_name(region) == storage_name:
            ep = endpoints(region)
            ref = None if region is Region.CN else OAuthRef(oauth_host=ep.oauth_host)
            return Selection(ref, ep.base_url, f"region {region.value}")
    named = account_of_slot(storage_name)
    if named is not None:  # a named account: its region's hosts, whatever the default slot's
        return account_selection(named.region, named.name)
    if storage_name == DEFAULT_STORAGE_NAME:
        return Selection(None, endpoints(Region.CN).base_url, "the default slot")
    return Selection(OAuthRef(key=f"oauth/{storage_name}"), endpoints(Region.CN).base_url, f"slot {storage_name}")


def account_selection(region: str, name: str) -> Selection:
    """Account `name` of `region` ("cn", "global"): its slot's key, refreshed at that region's
    host (from the settings, as `regions.endpoints` gives them: `token --account` loads no more)."""
    from tui.core.spec.keys import account_key  # lazy: off token's path

    ref = {
        "key": account_key(region, name),
        "oauthHost": settings.oauth_host(region) if region != settings.REGIONS[0] else None,
    }
    return Selection(ref, settings.base_url(region), f"account {name} ({region})")


def region_for_slot(storage_name: str) -> Region:
    from tui.core.spec.keys import region_of_slot  # lazy: off token's path
    from tui.core.spec.regions import Region  # lazy: off token's path

    return region_of_slot(storage_name) or Region.CN
