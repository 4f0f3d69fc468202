"""config.toml as the official client writes it: both host spellings, sub-tables, its other tables."""

from __future__ import annotations

import pytest

from tests.commands import run_command
from tests.conftest import CN_HOST, GLOBAL_BASE, GLOBAL_HOST, write_creds
from tests.core.test_selection import assert_scan_agrees_or_the_full_parse_answers, tomllib_answer
from tests.toml import tomllib
from tui.core import (
    MANAGED_PROVIDER,
    Region,
    derive_scoped_key,
    endpoints,
    get_access_token,
    resolve_context,
)
from tui.core.config.provider import apply_managed_provider, provision_managed_provider
from tui.core.config.read import scan_managed_provider
from tui.core.slots import choice as choice_module
from tui.core.slots.choice import inferred_hosts, select
from tui.demo.server import TOKEN_PATH


def official(oauth_lines: str, base_url: str = GLOBAL_BASE) -> str:
    """The shape the official client writes: whole-file rewrite, sub-tables, its own tables."""
    return f'''default_model = "assistant-code/assistant-for-coding"

[models."assistant-code/assistant-for-coding"]
provider = "{MANAGED_PROVIDER}"
model = "assistant-for-coding"
max_context_size = 262144

[providers."{MANAGED_PROVIDER}"]
type = "assistant"
base_url = "{base_url}"
api_key = ""

[providers."{MANAGED_PROVIDER}".oauth]
{oauth_lines}
[providers."{MANAGED_PROVIDER}".env]

[services.search]
base_url = "https://search.example/v1"
api_key = ""

[thinking]
enabled = true
'''


def global_key() -> str:
    ep = endpoints(Region.GLOBAL)
    return derive_scoped_key(ep.oauth_host, ep.base_url)


def shapes() -> dict[str, str]:
    key = global_key()
    return {
        "snake": official(f'storage = "file"\nkey = "{key}"\noauth_host = "{GLOBAL_HOST}"\n'),
        "camel": official(f'storage = "file"\nkey = "{key}"\noauthHost = "{GLOBAL_HOST}"\n'),
        "both": official(
            f'storage = "file"\nkey = "{key}"\noauthHost = "{GLOBAL_HOST}"\noauth_host = "{GLOBAL_HOST}"\n'
        ),
        "no-host": official(f'storage = "file"\nkey = "{key}"\n'),
        "cn": official('storage = "file"\nkey = "oauth/assistant-code"\n', endpoints(Region.CN).base_url),
    }


@pytest.mark.parametrize("shape", ["snake", "camel", "both", "no-host", "cn"])
def test_fast_scanner_reads_official_shapes_and_agrees_with_tomllib(shape):
    text = shapes()[shape]
    assert scan_managed_provider(text) is not None  # `token` stays on its fast path
    assert scan_managed_provider(text) == tomllib_answer(text)


@pytest.mark.parametrize(
    "text",
    [
        official('key = "k"\n[providers."managed:assistant-code".oauth]\nkey = "x"\n'),  # oauth twice
        official('key = "k"\n').replace('api_key = ""', 'api_key = ""\noauth = { key = "y" }'),  # inline and sub-table
        official('key = "k"\n').replace(
            '[providers."managed:assistant-code".env]', '[providers."managed:assistant-code".oauth.x]'
        ),
        official("key = 1\n"),
        official("key = \"k\" # c\noauth_host = 'https://literal'\n"),
        official('key = "k"\n').replace(
            'provider = "managed:assistant-code"', 'providers = { "managed:assistant-code" = {} }'
        ),
    ],
)
def test_fast_scanner_declines_or_agrees_on_odd_official_shapes(text):
    assert_scan_agrees_or_the_full_parse_answers(text)


@pytest.mark.parametrize("shape", ["snake", "camel", "both", "no-host"])
def test_select_reads_either_spelling_without_tomllib(home, monkeypatch, shape):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(shapes()[shape])
    monkeypatch.setattr(choice_module, "parse_config_readonly", lambda text: pytest.fail("slow path"))
    chosen = select()
    ctx = resolve_context(chosen.ref, chosen.base_url)
    assert ctx.oauth_host == GLOBAL_HOST and ctx.storage_name == global_key().removeprefix("oauth/")
    assert chosen.inferred_host == (GLOBAL_HOST if shape == "no-host" else None)


def test_resolve_context_keeps_the_spec_letter_for_a_hostless_scoped_key():
    assert resolve_context({"key": global_key()}, GLOBAL_BASE).oauth_host == CN_HOST


async def test_hostless_global_entry_refreshes_at_the_global_host(home, server):
    """After the official client dropped the host, the global slot still refreshes at global."""
    (home).mkdir(parents=True, exist_ok=True)
    key = global_key()
    base = endpoints(Region.GLOBAL).base_url
    (home / "config.toml").write_text(official(f'storage = "file"\nkey = "{key}"\n', base))
    name = key.removeprefix("oauth/")
    write_creds(home, {**server.issue_tokens(), "expires_at": 1}, name=name)
    chosen = select()
    assert chosen.inferred_host == endpoints(Region.GLOBAL).oauth_host
    token = await get_access_token(chosen.ref, chosen.base_url)
    assert token == server.issued[-1][0]
    (request,) = server.requests(TOKEN_PATH, grant_type="refresh_token")
    assert request.headers["Host"].startswith("localhost:")  # global is localhost, cn 127.0.0.1
    assert inferred_hosts() == {MANAGED_PROVIDER: endpoints(Region.GLOBAL).oauth_host}


def test_status_reports_the_missing_host(home, server):

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        official(f'storage = "file"\nkey = "{global_key()}"\n', endpoints(Region.GLOBAL).base_url)
    )
    done = run_command(["status"])
    assert "names no oauth host in config.toml; its key was made for http://localhost:" in done.stdout


@pytest.mark.parametrize(
    "shape,expected",
    [
        ("snake", {"oauth_host": GLOBAL_HOST}),
        ("camel", {"oauthHost": GLOBAL_HOST}),
        ("both", {"oauthHost": GLOBAL_HOST, "oauth_host": GLOBAL_HOST}),
        ("no-host", {"oauthHost": GLOBAL_HOST}),
    ],
)
def test_edit_keeps_the_official_shape_and_spelling(shape, expected):
    text = shapes()[shape].replace(GLOBAL_HOST, "https://old.example")
    after = apply_managed_provider(text, global_key(), Region.GLOBAL)
    assert f'[providers."{MANAGED_PROVIDER}".oauth]' in after  # still a sub-table
    oauth = tomllib.loads(after)["providers"][MANAGED_PROVIDER]["oauth"]
    assert oauth == {"storage": "file", "key": global_key(), **expected}
    before_doc, after_doc = tomllib.loads(text), tomllib.loads(after)
    for table in ("default_model", "models", "services", "thinking"):
        assert after_doc[table] == before_doc[table]
    assert after_doc["providers"][MANAGED_PROVIDER]["env"] == {}


@pytest.mark.parametrize("shape", ["snake", "camel", "both"])
def test_switching_an_official_entry_to_cn_drops_every_host_spelling(shape):
    """Spec 2.6: oauthHost only for global. A global entry's host is removed, not rewritten."""
    after = apply_managed_provider(shapes()[shape], "oauth/assistant-code", Region.CN)
    oauth = tomllib.loads(after)["providers"][MANAGED_PROVIDER]["oauth"]
    assert oauth == {"storage": "file", "key": "oauth/assistant-code"}


def test_new_entry_keeps_the_spec_shape(home):
    provision_managed_provider(global_key(), Region.GLOBAL)
    text = (home / "config.toml").read_text()
    assert 'oauth = {storage = "file", key = "' in text and f'oauthHost = "{GLOBAL_HOST}"' in text
