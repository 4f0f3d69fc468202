"""Which slot a command means; the token path's fast config scan agrees with tomllib."""

import pytest

from tests.conftest import CN_BASE, GLOBAL_BASE, GLOBAL_HOST
from tests.toml import tomllib
from tui.core import MANAGED_PROVIDER, Region
from tui.core.config.provider import apply_managed_provider
from tui.core.config.read import scan_managed_provider
from tui.core.errors import AuthError
from tui.core.slots.choice import managed_selection, provider_selection, select, selection_for_slot
from tui.core.spec.keys import region_key

USER = '# mine\n[general]\ntheme = "dark" # x\n\n[providers.openai]\nbase_url = "https://o.test"\n'


def tomllib_answer(text):
    entry = tomllib.loads(text)["providers"][MANAGED_PROVIDER]
    oauth = entry.get("oauth")
    return (oauth if isinstance(oauth, dict) else None, entry["base_url"])


def outcome(make):
    """What a call gives: its value, or the error it raises (its class and message)."""
    try:
        chosen = make()
    except AuthError as exc:
        return ("error", type(exc).__name__, str(exc))
    if chosen is None:
        return ("value", None)
    fields = [getattr(chosen, name) for name in type(chosen).__slots__]
    return ("value", [str(field) if isinstance(field, AuthError) else field for field in fields])


def assert_scan_agrees_or_the_full_parse_answers(text):
    """The scanner either agrees with tomllib or declines; either way what `token` uses is the
    full parser's answer: declining means `managed_selection` parses the file with tomllib."""
    answer = scan_managed_provider(text)
    if answer is not None:
        assert answer == tomllib_answer(text)
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        full = ("value", None)  # a file that does not parse: no managed provider
    else:
        full = outcome(lambda: provider_selection(MANAGED_PROVIDER, config))
    assert outcome(lambda: managed_selection(text)) == full
    return answer


@pytest.mark.parametrize("prefix", ["", USER])
@pytest.mark.parametrize("region", [Region.CN, Region.GLOBAL])
def test_scan_matches_tomllib_on_files_we_write(prefix, region):
    text = apply_managed_provider(prefix, region_key(region), region)
    assert scan_managed_provider(text) == tomllib_answer(text)


@pytest.mark.parametrize(
    "text",
    [
        f'[providers."{MANAGED_PROVIDER}"]\nbase_url = "https://a.test/v1"  # note\noauth = {{ key = "k" , oauthHost = "https://h" }}\n[x]\ny = 1\n',
        f'[providers."{MANAGED_PROVIDER}"]\nbase_url="https://a.test"\n',
        f'[providers."{MANAGED_PROVIDER}"]\n# comment\n\nbase_url = "https://a.test"\noauth = {{}}\n',
    ],
)
def test_scan_simple_variants_match_tomllib(text):
    assert scan_managed_provider(text) == tomllib_answer(text)


@pytest.mark.parametrize(
    "text",
    [
        f'[providers."{MANAGED_PROVIDER}"]\nbase_url = "https://a.test/\\u0041"\n',  # escape
        f"[providers.\"{MANAGED_PROVIDER}\"]\nbase_url = 'https://a.test'\n",  # literal string
        f'[providers."{MANAGED_PROVIDER}"]\nbase_url = "https://a.test"\noauth.key = "k"\n',  # dotted key
        f'[providers."{MANAGED_PROVIDER}"]\nbase_url = "https://a.test"\n[providers."{MANAGED_PROVIDER}".oauth]\nkey = "k"\n',
        f'[providers]\n"{MANAGED_PROVIDER}" = {{ base_url = "https://a.test" }}\n',
        f'providers = {{ "{MANAGED_PROVIDER}" = {{ base_url = "https://a.test" }} }}\n',
        f'x = """\n[providers."{MANAGED_PROVIDER}"]\n"""\n[providers."{MANAGED_PROVIDER}"]\nbase_url = "https://b.test"\n',
        f'[providers."{MANAGED_PROVIDER}"]\noauth = {{ key = "a,b" }}\nbase_url = "https://a.test"\n',
        f'[providers."{MANAGED_PROVIDER}"]\nbase_url = "https://a.test#frag"\n',
        f'[providers."{MANAGED_PROVIDER}"]\noauth = {{ key = "k", }}\nbase_url = "https://a.test"\n',
    ],
)
def test_scan_declines_or_agrees_on_unusual_shapes(text):
    assert_scan_agrees_or_the_full_parse_answers(text)


def test_select_prefers_managed_provider(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(apply_managed_provider("", region_key("global"), "global"))
    chosen = select()
    assert chosen.base_url == GLOBAL_BASE
    assert chosen.ref == {"key": region_key("global"), "oauthHost": GLOBAL_HOST}


def test_select_without_config_is_default_slot(home):
    chosen = select()
    assert chosen.ref is None and chosen.base_url == CN_BASE


def test_select_falls_back_to_tomllib(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        f'[providers]\n"{MANAGED_PROVIDER}" = {{ base_url = "https://a.test", oauth = {{ key = "oauth/x" }} }}\n'
    )
    chosen = select()
    assert chosen.ref == {"key": "oauth/x", "oauthHost": None} and chosen.base_url == "https://a.test"


def test_explicit_flags_and_unknown_provider(home):
    chosen = select(base_url="https://b.test", key="oauth/k")
    assert chosen.ref == {"key": "oauth/k", "oauthHost": None} and chosen.base_url == "https://b.test"
    with pytest.raises(Exception, match="No provider named 'nope'"):
        provider_selection("nope")


def test_selection_for_slot_by_region(home):
    from tui.core import (
        derive_scoped_key,
        endpoints,
        resolve_context,
        resolve_storage_name,
    )

    ep = endpoints(Region.GLOBAL)
    name = resolve_storage_name(derive_scoped_key(ep.oauth_host, ep.base_url))
    chosen = selection_for_slot(name)
    assert resolve_context(chosen.ref, chosen.base_url).oauth_host == GLOBAL_HOST
    assert resolve_context(chosen.ref, chosen.base_url).storage_name == name
    other = selection_for_slot("custom")
    assert resolve_context(other.ref, other.base_url).storage_name == "custom"
