"""Spec 4.5: derive_scoped_key, resolve_storage_name, OAuthRef and resolve_context."""

import hashlib

import pytest

from tests.conftest import CN_BASE, CN_HOST, GLOBAL_BASE, GLOBAL_HOST
from tui.core import (
    AuthError,
    OAuthRef,
    derive_scoped_key,
    resolve_context,
    resolve_storage_name,
)


def expected_key(host: str, base: str) -> str:
    text = '{"oauthHost":"' + host + '","baseUrl":"' + base + '"}'
    return "oauth/assistant-code-env-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def test_cn_pair_is_the_default_key():
    assert derive_scoped_key(CN_HOST, CN_BASE) == "oauth/assistant-code"


def test_cn_pair_is_normalized_before_comparing():
    assert derive_scoped_key(f"  {CN_HOST}/// ", f"{CN_BASE}/\t") == "oauth/assistant-code"


def test_global_pair_hashes_the_exact_json_text():
    key = derive_scoped_key(GLOBAL_HOST, GLOBAL_BASE)
    assert key == expected_key(GLOBAL_HOST, GLOBAL_BASE)
    suffix = key.rsplit("-", 1)[1]
    assert len(suffix) == 16 and suffix == suffix.lower()
    assert derive_scoped_key(GLOBAL_HOST + "/", " " + GLOBAL_BASE + "//") == key


def test_known_vector():
    # computed independently: sha256('{"oauthHost":"https://h","baseUrl":"https://b/coding/v1"}')
    text = '{"oauthHost":"https://h","baseUrl":"https://b/coding/v1"}'
    assert derive_scoped_key("https://h/", "https://b/coding/v1/") == (
        "oauth/assistant-code-env-" + hashlib.sha256(text.encode()).hexdigest()[:16]
    )


def test_mixed_pair_is_scoped():
    assert derive_scoped_key(CN_HOST, GLOBAL_BASE) != "oauth/assistant-code"


@pytest.mark.parametrize(
    "key, name",
    [
        ("assistant-code", "assistant-code"),
        ("oauth/assistant-code", "assistant-code"),
        ("oauth/assistant-code-env-0123456789abcdef", "assistant-code-env-0123456789abcdef"),
        ("oauth/custom", "custom"),
        ("custom", "custom"),
        ("my_slot.v2", "my_slot.v2"),
    ],
)
def test_resolve_storage_name(key, name):
    assert resolve_storage_name(key) == name


@pytest.mark.parametrize(
    "key",
    [
        "oauth/",
        ".hidden",
        "a/b",
        "oauth/a/b",
        "oauth/.hidden",
        "oauth/..",
        "..",
        "../etc/passwd",
        "oauth/../../x",
        "a\\b",
        "nul\x00byte",
        "x" * 300,
        "ключ",
        "",
        " ",
        "a b",
        "oauth//x",
        "emoji\U0001f600",
        "bidi\u202eevil",
        "new\nline",
    ],
)
def test_invalid_keys_are_rejected_with_the_spec_message(key):
    with pytest.raises(AuthError) as info:
        resolve_storage_name(key)
    assert str(info.value) == f"Invalid OAuth token key: {key}"


def test_oauth_ref_from_mapping_is_lenient():
    assert OAuthRef.from_mapping({"key": "k", "oauthHost": "https://h", "storage": "keyring"}) == OAuthRef(
        "k", "https://h"
    )
    assert OAuthRef.from_mapping({"key": 3, "oauthHost": ["x"]}) == OAuthRef(None, None)
    assert OAuthRef.from_mapping({}) == OAuthRef()
    assert OAuthRef.from_mapping("nope") is None
    assert OAuthRef.from_mapping(None) is None


def test_context_without_ref_uses_default_slot_whatever_the_base():
    for base in (CN_BASE, GLOBAL_BASE, "https://anything.test/v1"):
        ctx = resolve_context(None, base)
        assert ctx.storage_key == "oauth/assistant-code"
        assert ctx.storage_name == "assistant-code"
        assert ctx.oauth_host == CN_HOST
        assert ctx.token_endpoint == CN_HOST + "/api/oauth/token"


def test_context_with_key():
    ctx = resolve_context({"key": "oauth/custom"}, CN_BASE)
    assert (ctx.storage_key, ctx.storage_name, ctx.oauth_host) == ("oauth/custom", "custom", CN_HOST)


def test_context_with_blank_key_derives_from_host_and_base():
    ctx = resolve_context(OAuthRef(key="  ", oauth_host=GLOBAL_HOST + "/"), GLOBAL_BASE)
    assert ctx.storage_key == expected_key(GLOBAL_HOST, GLOBAL_BASE)
    assert ctx.storage_name == ctx.storage_key.removeprefix("oauth/")
    assert ctx.oauth_host == GLOBAL_HOST
    assert ctx.token_endpoint == GLOBAL_HOST + "/api/oauth/token"


def test_context_ref_without_host_uses_cn_host():
    ctx = resolve_context({}, CN_BASE)
    assert ctx.oauth_host == CN_HOST and ctx.storage_name == "assistant-code"
    ctx = resolve_context({"oauthHost": "   "}, GLOBAL_BASE)
    assert ctx.oauth_host == CN_HOST
    assert ctx.storage_key == expected_key(CN_HOST, GLOBAL_BASE)


def test_context_invalid_key_falls_back_to_default_name():
    ctx = resolve_context({"key": "../../etc/passwd"}, CN_BASE)
    assert ctx.storage_name == "assistant-code"
    assert ctx.storage_key == "../../etc/passwd"


def test_context_non_mapping_ref_is_no_ref():
    assert resolve_context("garbage", GLOBAL_BASE).storage_name == "assistant-code"


def test_region_key_and_slot_follow_the_region_endpoints():
    from tui.core import Region
    from tui.core.spec.keys import region_key, region_storage_name

    assert region_key(Region.CN) == region_key("cn") == "oauth/assistant-code"
    assert region_storage_name(Region.CN) == "assistant-code"
    assert region_key(Region.GLOBAL) == derive_scoped_key(GLOBAL_HOST, GLOBAL_BASE)
    assert region_storage_name("global") == derive_scoped_key(GLOBAL_HOST, GLOBAL_BASE).removeprefix("oauth/")
