"""Provider config viewer/editor: round-trip saves, diffs, lost-update and corrupt-file safety."""

from tests.app.helpers import answer, footer_text, screen_name, screen_text, wait_for
from tests.toml import tomllib
from tui.app import AssistantAuthApp

SIZE = (100, 34)
API_KEY = "sk-live-0123456789abcdefghij"
CONFIG = f"""\
# Hand-written config: these comments must survive.
[general]
theme = "dark"        # aligned comment

[providers.openai]
type = "openai"
base_url = "https://api.openai.test/v1"   # keep this comment
api_key = "{API_KEY}"
enabled = true

[providers."managed:assistant-code"]
name = "managed:assistant-code"
type = "assistant"
base_url = "https://api.cn.test/coding/v1"
api_key = ""
enabled = true
active = false
managed = true
oauth = {{ storage = "file", key = "oauth/assistant-code" }}

# unrelated table at the end
[telemetry]
enabled = false
"""


def write_config(home, text=CONFIG):
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text)
    return path


async def open_providers(pilot):
    await pilot.press("p")
    await wait_for(pilot, lambda: screen_name(pilot.app) == "ProvidersScreen")


async def type_into(pilot, selector: str, text: str) -> None:
    widget = pilot.app.screen.query_one(selector)
    widget.focus()
    await pilot.pause()
    await pilot.press("end", "shift+home", "backspace")  # the old value selected and deleted, as a person would
    await wait_for(pilot, lambda: widget.value == "")
    if text:
        await pilot.press(*text)
    await wait_for(pilot, lambda: widget.value == text)  # every key reached the field


async def test_edit_base_url_changes_only_that_value(home):
    path = write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        text = screen_text(app)
        assert "openai" in text and "managed:assistant-code" in text
        await type_into(pilot, "#field-base_url", "https://proxy.test/v2")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        diff = screen_text(app)
        assert '-base_url = "https://api.openai.test/v1"   # keep this comment' in diff
        assert '+base_url = "https://proxy.test/v2"   # keep this comment' in diff
        await pilot.press("y")
        await wait_for(pilot, lambda: "Saved" in screen_text(app))
    expected = CONFIG.replace("https://api.openai.test/v1", "https://proxy.test/v2")
    assert path.read_text() == expected  # byte for byte, only the edited value changed
    assert (home / "config.toml.bak").read_text() == CONFIG


async def test_toggle_and_oauth_fields(home):
    path = write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        await pilot.press("down")  # the managed provider
        await pilot.pause()
        await pilot.click("#field-active")
        await type_into(pilot, "#field-oauth_host", "https://auth.global.test")
        await answer(pilot, "ctrl+s", "y")
        await wait_for(pilot, lambda: "Saved" in screen_text(app))
    entry = tomllib.loads(path.read_text())["providers"]["managed:assistant-code"]
    assert entry["active"] is True
    assert entry["oauth"] == {"storage": "file", "key": "oauth/assistant-code", "oauthHost": "https://auth.global.test"}
    assert path.read_text().startswith(CONFIG.split('[providers."managed')[0])


async def test_validation_errors_are_inline_and_block_save(home):
    path = write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        await type_into(pilot, "#field-base_url", "ftp://nope")
        await type_into(pilot, "#field-oauth_key", "../escape")
        await type_into(pilot, "#field-oauth_host", "http://evil.test")
        text = screen_text(app)
        assert "base_url must be an http(s) URL" in text
        assert "Invalid OAuth token key: ../escape" in text
        assert "oauthHost must use https://" in text
        await pilot.press("ctrl+s")
        assert screen_name(app) == "ProvidersScreen"
        assert "Fix the fields" in screen_text(app)
    assert path.read_text() == CONFIG


async def test_external_edit_refuses_save_before_the_question(home):
    path = write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        await type_into(pilot, "#field-note", "mine")
        external = CONFIG.replace('theme = "dark"', 'theme = "light"')
        path.write_text(external)  # someone else saves meanwhile
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen.notice_text.startswith("Not saved: config.toml changed on disk"))
        assert screen_name(app) == "ProvidersScreen"  # no "Write these changes?" that could not be honoured
        assert path.read_text() == external
        await answer(pilot, "ctrl+r", "y")  # reloading drops the edit: it asks first
        await wait_for(pilot, lambda: app.screen.query_one("#field-note").value == "")
    assert path.read_text() == external


async def test_external_edit_while_the_question_is_open_is_not_overwritten(home):
    path = write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        await type_into(pilot, "#field-note", "mine")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        external = CONFIG.replace('theme = "dark"', 'theme = "light"')
        path.write_text(external)  # between the question and the answer
        await pilot.press("y")
        # the notice's own text: on screen it wraps where the temporary path's length puts it
        await wait_for(pilot, lambda: app.screen.notice_text.startswith("Not saved"))
        assert "make your edit again" in app.screen.notice_text
        await pilot.pause(2.5)  # past the disk watcher's next look: the specific notice stays
        assert app.screen.notice_text.startswith("Not saved")
    assert path.read_text() == external


async def test_external_edit_without_local_changes_reloads(home):
    path = write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        path.write_text(CONFIG.replace("https://api.openai.test/v1", "https://changed.test/v1"))
        await wait_for(pilot, lambda: app.screen.query_one("#field-base_url").value == "https://changed.test/v1")


async def test_corrupt_toml_is_shown_and_never_overwritten(home):
    broken = CONFIG + '\n[broken\nkey = "x"\n'
    path = write_config(home, broken)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        text = screen_text(app)
        # the standard parser's position, as doctor and `status` report the same error
        assert "Failed to read assistant config" in text and "line 25," in text and "column 8" in text
        assert not app.screen.check_action("save", ()) and "Save" not in footer_text(app)  # #57 8: not offered
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert path.read_text() == broken
    assert not (home / "config.toml.bak").exists()


async def test_api_key_is_masked_everywhere(home):
    write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        assert API_KEY not in screen_text(app) and API_KEY[4:12] not in screen_text(app)
        await pilot.press("f2")
        await pilot.pause()
        raw = screen_text(app)
        assert "sk-l…ghij" in raw and API_KEY not in raw and "keep this comment" in raw
        await pilot.press("f2")
        await type_into(pilot, "#field-api_key", "sk-new-secret-value-000")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        diff = screen_text(app)
        assert "sk-n…-000" in diff and "sk-new-secret-value-000" not in diff and API_KEY not in diff
        await pilot.press("n")


async def test_missing_config(home):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_providers(pilot)
        assert "No config.toml yet" in screen_text(app)
