"""Fixed scenes of every screen, shared by `make screenshots` and the snapshot tests.

A scene fixes everything that would otherwise change between runs: the wall clock (`time.time`
is frozen at `NOW` while a scene runs), the sign-in countdown's clock, the user code, the
authorization server (an in-process httpx transport on the placeholder hosts: no port), the
paths (a home under a temporary directory, shown as `~/.assistant-code/…`) and the time zone
(UTC). A snapshot then changes only when the screen does.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import pathlib
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

from textual.widgets import Input

from tui.app import AssistantAuthApp
from tui.app.screens.doctor import DoctorScreen
from tui.core.signin.store import persist_device_signin
from tui.core.spec.keys import region_storage_name
from tui.core.spec.regions import Region
from tui.dev.agent_scenes import AgentSceneApp, ask_over_it

NOW = 1_800_000_000  # 2027-01-15 08:00:00 UTC
CODE = "WDJB-MJHT"
SIZE = (80, 24)
HOST_VARS = (
    "ASSISTANT_OAUTH_HOST_CN",
    "ASSISTANT_OAUTH_HOST_GLOBAL",
    "ASSISTANT_BASE_URL_CN",
    "ASSISTANT_BASE_URL_GLOBAL",
    "ASSISTANT_CLIENT_ID",
    "SSH_CONNECTION",
    "SSH_TTY",
)
USER_CONFIG = """\
# Providers for my coding tools
[providers.openai]
type = "openai"
base_url = "https://api.openai.example/v1"
api_key = "sk-example-0000000000000000"   # masked on screen
enabled = true

"""


def fake_jwt(claims: dict) -> str:
    """An unsigned JWT-shaped token: the inspector decodes claims without verifying them."""

    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}.c2NlbmU"


def tokens(expires_in: int = 3600, who: str = "user-1") -> dict:
    claims = {"sub": who, "name": who, "iat": NOW, "exp": NOW + expires_in}
    return {
        "access_token": fake_jwt(claims),
        "refresh_token": "rt-scene-0000000000000000000000",
        "expires_in": expires_in,
        "scope": "coding",
        "token_type": "Bearer",
    }


def authorization_server(poll_answer: str = "pending"):
    """An httpx transport answering as the authorization server would: the device authorization
    with `CODE`, and every poll with `poll_answer` (pending, approve, deny or 502)."""
    import httpx  # lazy: heavy: httpx

    def handle(request: httpx.Request) -> httpx.Response:
        host = f"{request.url.scheme}://{request.url.host}"
        if request.url.path == "/api/oauth/device_authorization":
            return httpx.Response(
                200,
                json={
                    "user_code": CODE,
                    "device_code": "scene-device-code",
                    "verification_uri": f"{host}/device",
                    "verification_uri_complete": f"{host}/device?user_code={CODE}",
                    "expires_in": 900,
                    "interval": 5,
                },
            )
        if poll_answer == "approve":
            return httpx.Response(200, json=tokens())
        if poll_answer == "deny":
            return httpx.Response(400, json={"error": "access_denied"})
        if poll_answer == "502":
            return httpx.Response(
                502, text="<html><h1>502 Bad Gateway</h1></html>", headers={"content-type": "text/html"}
            )
        return httpx.Response(400, json={"error": "authorization_pending"})

    return httpx.AsyncClient(transport=httpx.MockTransport(handle))


# -- files a scene starts with ------------------------------------------------------------------


def _write(path: pathlib.Path, text: str, mode: int = 0o600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(text)
    os.chmod(path, mode)
    os.utime(path, (NOW - 600, NOW - 600))


def signed_in(home: pathlib.Path) -> None:
    """A cn sign-in an hour ago, as this program writes it, and the user's own provider."""
    _write(home / "config.toml", USER_CONFIG)
    persist_device_signin(tokens(), Region.CN)
    for path in (home / "config.toml", *home.joinpath("credentials").glob("*.json")):
        os.utime(path, (NOW - 600, NOW - 600))


def many_slots(home: pathlib.Path) -> None:
    """A signed-in cn slot, an expired global one with a refresh token, and a corrupt file."""
    signed_in(home)
    expired = {**tokens(), "expires_at": NOW - 7200}
    _write(home / "credentials" / f"{region_storage_name('global')}.json", json.dumps(expired, indent=2))
    _write(home / "credentials" / "old-session.json", "{not json", mode=0o644)


def accounts(home: pathlib.Path) -> None:
    """cn's own sign-in, and two named accounts of cn (work, the active one, and personal)."""
    signed_in(home)
    for name, who in (("personal", "bo.personal"), ("work", "ada.work")):
        persist_device_signin(tokens(who=who), Region.CN, account=name)
    for path in (home / "config.toml", *home.joinpath("credentials").glob("*.json")):
        os.utime(path, (NOW - 600, NOW - 600))


def needs_repair(home: pathlib.Path) -> None:
    """A sign-in as a restore and a hand edit leave it: the credential file readable by others,
    config.toml broken after the editor's save at 14:02 (its copy from before that save kept)."""
    signed_in(home)
    os.chmod(home / "credentials" / "assistant-code.json", 0o644)
    config = home / "config.toml"
    backup = home / "config.toml.bak"
    _write(backup, config.read_text())
    saved = time.mktime((2026, 11, 28, 14, 2, 0, 0, 0, -1))
    os.utime(backup, (saved, saved))
    _write(config, config.read_text() + "\n[broken\n")


def user_config(home: pathlib.Path) -> None:
    _write(home / "config.toml", USER_CONFIG)


# -- scenes ------------------------------------------------------------------------------------


async def wait_for(pilot, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError("the scene did not reach the expected state")
        await pilot.pause(0.05)
    await pilot.pause(0.1)


def screen_is(pilot, name: str) -> bool:
    return type(pilot.app.screen).__name__ == name


async def _code_shown(pilot) -> None:
    await pilot.press("enter")

    def polls() -> int:
        attempt = getattr(pilot.app.screen, "made", None)  # the sign-in screen's attempt, once made
        return attempt.polls if attempt is not None else 0

    await wait_for(pilot, lambda: polls() == 1)


async def _qr(pilot) -> None:
    await _code_shown(pilot)
    await pilot.press("r")
    await wait_for(pilot, lambda: bool(pilot.app.screen.query("#qr")))


async def _finished(pilot, screen: str) -> None:
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen_is(pilot, screen))


async def _inspector(pilot) -> None:
    await wait_for(pilot, lambda: screen_is(pilot, "CredentialsScreen"))


async def _providers(pilot) -> None:
    await wait_for(pilot, lambda: screen_is(pilot, "ProvidersScreen"))


async def _save_diff(pilot) -> None:
    await _providers(pilot)
    field_input = pilot.app.screen.query_one("#field-base_url")
    field_input.focus()
    await pilot.press("end", *["backspace"] * len(field_input.value), *"https://proxy.example/v1")
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: screen_is(pilot, "ConfirmScreen"))


async def _raw(pilot) -> None:
    await _providers(pilot)
    await pilot.press("f2")
    await wait_for(pilot, lambda: pilot.app.screen.query_one("#raw-view").display)


async def _help(pilot) -> None:
    await _code_shown(pilot)
    await pilot.press("question_mark")
    await wait_for(pilot, lambda: screen_is(pilot, "HelpScreen"))


async def _replace_question(pilot) -> None:
    await pilot.press("enter")  # cn works: add another account, or sign in to this one again?
    await wait_for(pilot, lambda: screen_is(pilot, "AccountChoiceScreen"))


async def _account_choice(pilot) -> None:
    await pilot.press("home", "enter")  # cn's row (Home opens on the active account's)
    await wait_for(pilot, lambda: screen_is(pilot, "AccountChoiceScreen"))
    await pilot.press(*"team-2")  # the name field has the focus


async def _notices(pilot) -> None:
    """Home's warnings after its first frame: config.toml's too (parsed right after it)."""
    await wait_for(pilot, lambda: any("config" in str(w.plain_text) for w in pilot.app.screen.query("#notices")))


async def _restore_question(pilot) -> None:
    await _providers(pilot)
    await pilot.press("b")
    await wait_for(pilot, lambda: screen_is(pilot, "ConfirmScreen"))


async def _doctor(pilot) -> None:
    pilot.app.push_screen(DoctorScreen(offline=True))  # the network stages depend on the machine
    await wait_for(pilot, lambda: screen_is(pilot, "DoctorScreen") and bool(pilot.app.screen.checks))


@dataclass(frozen=True)
class Scene:
    name: str  # also the screenshot's file name
    files: Callable[[pathlib.Path], None] | None = None
    start: str = "home"
    poll_answer: str = "pending"
    steps: Callable[..., Awaitable[None]] | None = None
    size: tuple[int, int] = SIZE
    region: str | None = None
    extra: dict = field(default_factory=dict)
    lang: str = "en"  # ASSISTANT_LANG for the scene, whatever the machine's locale

    async def ready(self, pilot) -> None:
        """The scene's steps, then every field's cursor held still: a blinking cursor would make
        the picture depend on the moment it is taken (a loaded machine takes it later)."""
        if self.steps is not None:
            await self.steps(pilot)
        for widget in pilot.app.screen.query(Input):
            widget.cursor_blink = False
        await pilot.pause()


SCENES = [
    Scene("01-home"),
    Scene("02-code-and-polling", steps=_code_shown),
    Scene("03-qr-code", steps=_qr, size=(100, 30)),
    Scene("04-done", poll_answer="approve", steps=lambda pilot: _finished(pilot, "DoneScreen")),
    Scene("05-access-denied", poll_answer="deny", steps=lambda pilot: _finished(pilot, "OutcomeScreen")),
    Scene("06-error", poll_answer="502", steps=lambda pilot: _finished(pilot, "OutcomeScreen")),
    Scene("07-credentials", files=many_slots, start="inspect", steps=_inspector),
    Scene("08-providers", files=signed_in, start="providers", steps=_providers),
    Scene("09-save-diff", files=signed_in, start="providers", steps=_save_diff),
    Scene("10-raw-config", files=signed_in, start="providers", steps=_raw),
    Scene("11-home-signed-in", files=signed_in),
    Scene("12-code-small-terminal", steps=_code_shown, size=(60, 18)),
    Scene("13-help", steps=_help),
    Scene("14-replace-question", files=signed_in, steps=_replace_question),
    Scene(
        "15-done-small-terminal",
        poll_answer="approve",
        steps=lambda pilot: _finished(pilot, "DoneScreen"),
        size=(60, 18),
    ),
    Scene("16-doctor", files=signed_in, steps=_doctor),
    Scene("17-qr-alone-small-terminal", steps=_qr, size=(60, 20)),
    Scene("18-home-zh", files=signed_in, lang="zh-CN"),
    Scene("19-home-zh-small-terminal", files=signed_in, size=(60, 18), lang="zh-CN"),
    Scene("20-code-zh", steps=_code_shown, lang="zh-CN"),
    Scene("21-code-zh-small-terminal", steps=_code_shown, size=(60, 18), lang="zh-CN"),
    Scene(
        "22-done-zh-small-terminal",
        poll_answer="approve",
        steps=lambda pilot: _finished(pilot, "DoneScreen"),
        size=(60, 18),
        lang="zh-CN",
    ),
    Scene("23-error-zh", poll_answer="502", steps=lambda pilot: _finished(pilot, "OutcomeScreen"), lang="zh-CN"),
    Scene("24-credentials-zh", files=many_slots, start="inspect", steps=_inspector, lang="zh-CN"),
    Scene(
        "25-credentials-zh-small-terminal",
        files=many_slots,
        start="inspect",
        steps=_inspector,
        size=(60, 18),
        lang="zh-CN",
    ),
    Scene("26-providers-zh", files=signed_in, start="providers", steps=_providers, lang="zh-CN"),
    Scene(
        "27-providers-zh-small-terminal",
        files=signed_in,
        start="providers",
        steps=_providers,
        size=(60, 18),
        lang="zh-CN",
    ),
    Scene("28-help-zh", steps=_help, lang="zh-CN"),
    Scene("29-doctor-zh", files=signed_in, steps=_doctor, lang="zh-CN"),
    Scene("30-doctor-zh-small-terminal", files=signed_in, steps=_doctor, size=(60, 18), lang="zh-CN"),
    Scene("31-agent", start="agent"),
    Scene("32-agent-confirm", start="agent", steps=ask_over_it),
    Scene("33-agent-zh", start="agent", lang="zh-CN"),
    Scene("34-agent-confirm-zh-small-terminal", start="agent", steps=ask_over_it, size=(60, 18), lang="zh-CN"),
    Scene("35-home-accounts", files=accounts),
    Scene("36-add-account", files=accounts, steps=_account_choice),
    Scene("37-home-accounts-zh-small-terminal", files=accounts, size=(60, 18), lang="zh-CN"),
    Scene("38-add-account-zh", files=accounts, steps=_account_choice, lang="zh-CN"),
    Scene("39-home-needs-repair", files=needs_repair, steps=_notices, size=(100, 30)),
    Scene("40-home-needs-repair-zh", files=needs_repair, steps=_notices, size=(100, 30), lang="zh-CN"),
    Scene("41-restore-question", files=needs_repair, start="providers", steps=_restore_question),
    Scene("42-restore-question-zh", files=needs_repair, start="providers", steps=_restore_question, lang="zh-CN"),
]
BY_NAME = {scene.name: scene for scene in SCENES}


@contextlib.contextmanager
def staged(root: pathlib.Path, lang: str = "en") -> Iterator[pathlib.Path]:
    """The scene's environment for the duration: a home under `root`, the placeholder hosts, UTC,
    the language and a frozen wall clock. Restores everything afterwards."""
    home = root / "home" / ".assistant-code"
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(home, 0o700)
    saved = {
        name: os.environ.get(name)
        for name in (*HOST_VARS, "HOME", "ASSISTANT_CODE_HOME", "TZ", "FORCE_HYPERLINK", "ASSISTANT_LANG")
    }
    real_time = time.time
    for name in HOST_VARS:
        os.environ.pop(name, None)
    # FORCE_HYPERLINK: the same link on every machine, whatever TERM says
    os.environ.update(
        {
            "HOME": str(root / "home"),
            "ASSISTANT_CODE_HOME": str(home),
            "TZ": "UTC",
            "FORCE_HYPERLINK": "1",
            "ASSISTANT_LANG": lang,
        }
    )
    time.tzset()
    time.time = lambda: float(NOW)  # the scene's wall clock (expiry texts, written expires_at)
    try:
        yield home
    finally:
        time.time = real_time
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        time.tzset()


def build(scene: Scene, home: pathlib.Path):
    """The app of a scene, its files written into `home` (inside `staged`)."""
    if scene.files is not None:
        scene.files(home)
    if scene.start == "agent":  # the token agent's own app, from a fixed feed
        return AgentSceneApp(float(NOW))
    region = Region(scene.region) if scene.region else None
    app = AssistantAuthApp(
        region, no_browser=True, start=scene.start, http_client=authorization_server(scene.poll_answer)
    )
    app.signin_clock = lambda: 1000.0  # the countdown stands still at the code's full lifetime
    return app
