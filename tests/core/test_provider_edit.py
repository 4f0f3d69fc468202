"""Provider edits as pure functions: validation, round-trip edits, masked diffs, safe saves."""

import pytest

from tui.core import AuthError
from tui.core.config.edit import (
    ConfigChanged,
    edit_provider,
    load_snapshot,
    mask_secrets,
    masked_diff,
    save_snapshot,
    validate,
)

TEXT = '# c\n[providers.a]\nbase_url = "http://x"  # keep\napi_key = "sk-abcdefghijklmnop"\nenabled = true\n'


@pytest.mark.parametrize(
    "field, value, ok",
    [
        ("base_url", "https://a.test/v1", True),
        ("base_url", "ftp://a.test", False),
        ("oauth_host", "", True),
        ("oauth_host", "https://auth.test", True),
        ("oauth_host", "http://127.0.0.1:8080", True),
        ("oauth_host", "http://localhost", True),
        ("oauth_host", "http://auth.test", False),
        ("oauth_key", "oauth/custom", True),
        ("oauth_key", "../x", False),
        ("enabled", True, True),
        ("enabled", "yes", False),
        ("note", "bell\x07", False),
        ("type", "x", False),
    ],
)
def test_validate(field, value, ok):
    assert (validate(field, value) is None) is ok


def test_edit_changes_only_the_edited_values():
    new = edit_provider(TEXT, "a", {"base_url": "https://y", "enabled": True, "oauth_key": "oauth/k"})
    assert new == TEXT.replace("http://x", "https://y") + 'oauth = {storage = "file", key = "oauth/k"}\n'
    with pytest.raises(AuthError, match="No provider named 'b'"):
        edit_provider(TEXT, "b", {"note": "x"})
    with pytest.raises(AuthError, match="base_url must be"):
        edit_provider(TEXT, "a", {"base_url": "nope"})


def test_masking_in_diff_and_text():
    assert "sk-abcdefghijklmnop" not in mask_secrets(TEXT) and "sk-a…mnop" in mask_secrets(TEXT)
    diff = masked_diff(TEXT, TEXT.replace("sk-abcdefghijklmnop", "sk-zzzzzzzzzzzz0000"))
    assert "sk-a…mnop" in diff and "sk-z…0000" in diff and "zzzzzzzz" not in diff


def test_save_refuses_a_file_changed_since_load(home):
    home.mkdir(parents=True)
    path = home / "config.toml"
    path.write_text(TEXT)
    snapshot = load_snapshot()
    path.write_text(TEXT + "# someone else\n")
    with pytest.raises(ConfigChanged):
        save_snapshot(snapshot, TEXT.replace("http://x", "https://y"))
    assert path.read_text() == TEXT + "# someone else\n"
    fresh = load_snapshot()
    save_snapshot(fresh, fresh.text.replace("http://x", "https://y"))
    assert (home / "config.toml.bak").read_text() == TEXT + "# someone else\n"
