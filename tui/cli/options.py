"""Flags shared by several commands, defined once: the slot selectors and --region.

`parse_flags` is the hand parser of the `token` and `exec` fast path (no argparse); `add_selector`
gives argparse commands the same flags with the same rules, and `selector_of` reads them. Either
way the flags become one `Selector` here, at the door, and `selector_problem` judges it. On the
`token` path when it has flags: nothing here loads argparse or the core's heavier parts at import.
"""

from __future__ import annotations

import os

from tui.core.slots.selector import Selector
from tui.core.spec.settings import REGIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tui.core.spec.regions import Region

SELECTOR_HELP = (
    "[--account NAME [--region cn|global] | --slot NAME | --region cn|global | --provider NAME"
    " | --base-url URL [--key KEY] [--oauth-host HOST]]"
)
_NAMES = {
    "--account": "account",
    "--slot": "slot",
    "--region": "region",
    "--provider": "provider",
    "--base-url": "base_url",
    "--key": "key",
    "--oauth-host": "oauth_host",
}


def selector_problem(selector: Selector) -> str | None:
    """Why the flags cannot go together (a sentence), or None."""
    account = selector.account
    chosen = [name for name in ("slot", "region", "provider") if getattr(selector, name)]
    explicit = any(getattr(selector, name) is not None for name in ("base_url", "key", "oauth_host"))
    region = selector.region
    if account is not None:
        from tui.core.spec.keys import valid_account_name  # lazy: off token's path

        if explicit or [k for k in chosen if k != "region"]:
            from tui.core.text.i18n import _  # lazy: only to say a problem: nothing here loads the core at import

            return _("--account goes with --region only (not --slot, --provider or --base-url)")
        if not valid_account_name(account):
            from tui.core.slots.accounts import name_problem  # lazy: only to say a problem

            return name_problem(account)
    if len(chosen) > 1 or (chosen and explicit):
        from tui.core.text.i18n import _  # lazy: only to say a problem: nothing here loads the core at import

        return _("choose one of --slot, --region, --provider or --base-url/--key/--oauth-host")
    if region is not None and selector.region_word not in REGIONS:
        from tui.core.text.i18n import _  # lazy: only to say a problem: nothing here loads the core at import

        return _("unknown region {value}: use cn or global").format(value=repr(region))
    if (selector.key is not None or selector.oauth_host is not None) and selector.base_url is None:
        from tui.core.text.i18n import _  # lazy: only to say a problem: nothing here loads the core at import

        return _("--key and --oauth-host need --base-url")
    return None


def parse_flags(
    args: list[str], switches: tuple[str, ...] = (), options: tuple[str, ...] = (), command: str = "COMMAND"
) -> tuple[Selector, dict, list[str], str | None]:
    """The hand parser of `token` and `exec`: the selector, plus `switches` (flags without a
    value) and `options` (flags with one, also `--flag=value`); everything after `--` is returned
    as it is. (the selector, extras, the rest after `--`, problem)."""
    values: dict = {}
    extra: dict = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            selector = Selector.of(values)
            return selector, extra, args[i + 1 :], selector_problem(selector)
        flag, eq, inline = arg.partition("=")
        if flag in switches and not eq:
            extra[flag] = True
            i += 1
            continue
        if flag not in _NAMES and flag not in options:
            from tui.core.text.i18n import _  # lazy: only to say a problem: nothing here loads the core at import

            usage = f"assistant-auth {command} {SELECTOR_HELP}"
            return (
                Selector.of(values),
                extra,
                [],
                _("unknown option {option}; usage: {usage}").format(option=repr(arg), usage=usage),
            )
        if eq:
            value = inline
        elif i + 1 < len(args):
            i += 1
            value = args[i]
        else:
            from tui.core.text.i18n import _  # lazy: only to say a problem: nothing here loads the core at import

            return Selector.of(values), extra, [], _("{option} needs a value").format(option=flag)
        if flag in _NAMES:
            values[_NAMES[flag]] = value
        else:
            extra[flag] = value
        i += 1
    selector = Selector.of(values)
    return selector, extra, [], selector_problem(selector)


MAX_MIN_TTL = 366 * 24 * 3600  # seconds: no access token lives a year; more is a typo


def min_ttl_value(text: str | None) -> tuple[int | None, str | None]:
    """--min-ttl SECONDS: a whole number from 0 to a year (values below the spec's 30 s mean 30).
    Any other text, however long, is a usage error quoting at most its first 20 characters."""
    if text is None:
        return None, None
    digits = text.lstrip("0") or "0"
    if not (text.isascii() and text.isdigit()) or len(digits) > len(str(MAX_MIN_TTL)) or int(digits) > MAX_MIN_TTL:
        from tui.core.text.i18n import _  # lazy: nothing in this module loads the core at import

        shown = text if len(text) <= 20 else text[:20] + "…"
        return None, _("--min-ttl takes a whole number of seconds from 0 to {most} (not {given})").format(
            most=MAX_MIN_TTL, given=repr(shown)
        )
    return int(digits), None


def complete_regions(prefix: str, **_) -> list[str]:
    """Shell completion of --region (argcomplete calls it; nothing is imported for it)."""
    return [region for region in REGIONS if region.startswith(prefix)]


def complete_slots(prefix: str, **_) -> list[str]:
    """Shell completion of --slot: the slot names on disk, as `status` lists them."""

    from tui.core.spec import paths  # lazy: off token's path

    try:
        entries = os.listdir(paths.credentials_dir())
    except OSError:
        return []
    names = {e[: -len(".json")] for e in entries if e.endswith(".json") and not e.startswith(".")}
    return sorted(name for name in names if name.startswith(prefix) and name.isprintable() and " " not in name)


def complete_accounts(prefix: str, **_) -> list[str]:
    """Shell completion of --account and `switch`: the account names on disk."""
    from tui.core.spec import paths  # lazy: off token's path
    from tui.core.spec.keys import account_of_slot  # lazy: off token's path

    try:
        entries = os.listdir(paths.credentials_dir())
    except OSError:
        return []
    names = set()
    for entry in entries:
        named = account_of_slot(entry[: -len(".json")]) if entry.endswith(".json") else None
        if named is not None and named.name.startswith(prefix):
            names.add(named.name)
    return sorted(names)


def complete_providers(prefix: str, **_) -> list[str]:
    """Shell completion of --provider: the provider names of config.toml (unreadable: none)."""
    try:
        from tui.core.config.read import read_config_readonly  # lazy: off token's path

        providers = read_config_readonly().get("providers", {})
    except Exception:  # noqa: BLE001 - a completion never prints a traceback into the shell
        return []
    return sorted(n for n in providers if isinstance(n, str) and n.startswith(prefix) and n.isprintable())


def add_selector(parser, region: bool = True, keys: bool = True) -> None:
    """The slot selection flags; `keys` False: only those the token agent is asked by (--slot,
    --region, --provider), not explicit keys and hosts."""
    from tui.core.text.i18n import _  # lazy: nothing in this module loads the core at import

    group = parser.add_argument_group(_("slot selection (default: the slot of the provider managed:assistant-code)"))
    group.add_argument(
        "--account", metavar="NAME", help=_("a named account (`status` lists them; with --region when both have it)")
    ).completer = complete_accounts
    group.add_argument(
        "--slot", metavar="NAME", help=_("a credential slot by the name `status` lists")
    ).completer = complete_slots
    if region:
        group.add_argument(
            "--region", type=region_arg, metavar="{cn,global}", help=_("the slot a sign-in in that region writes")
        ).completer = complete_regions
    group.add_argument(
        "--provider", metavar="NAME", help=_("the slot a provider of config.toml uses")
    ).completer = complete_providers
    if not keys:
        return
    group.add_argument("--base-url", metavar="URL", help=_("an API base (alone, or with --key/--oauth-host)"))
    group.add_argument("--key", metavar="KEY", help=_("an OAuth storage key such as oauth/assistant-code"))
    group.add_argument("--oauth-host", metavar="HOST", help=_("the authorization host that refreshes it"))


def selector_of(ns) -> Selector:
    """The selector an argparse command's flags name (`add_selector`'s)."""
    return Selector.of({name: getattr(ns, name, None) for name in _NAMES.values()})


def region_arg(value: str) -> Region:
    """--region on the command line, parsed once at the door: cn or global only (stored values
    keep the spec's lenient parse)."""
    import argparse  # lazy: off token's path

    from tui.core.spec.regions import (  # lazy: off token's path
        Region,  # here: nothing in this module loads the core at import
    )

    cleaned = value.strip().lower()
    if cleaned not in REGIONS:
        from tui.core.text.i18n import _  # lazy: catalogs, when said

        raise argparse.ArgumentTypeError(_("unknown region {value}: use cn or global").format(value=repr(value)))
    return Region(cleaned)


def add_region(parser, help_text: str) -> None:
    parser.add_argument("--region", type=region_arg, metavar="{cn,global}", help=help_text).completer = complete_regions
