"""`make screenshots`: one SVG per screen at 80x24, against the local authorization server.

Fixed terminal size, fixed user code, fixed port and paths, so re-running changes only the
clock-dependent text (expiry times, countdowns) and the masked token ends.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil
import sys
import time

SIZE = (80, 24)
PORT = 48765
HOME = pathlib.Path("/tmp/assistant-auth-screens/home")
CODE = "WDJB-MJHT"
USER_CONFIG = """\
# Providers for my coding tools
[providers.openai]
type = "openai"
base_url = "https://api.openai.example/v1"
api_key = "sk-example-0000000000000000"   # masked on screen
enabled = true

"""


async def wait_for(pilot, predicate, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError("screen did not reach the expected state")
        await pilot.pause(0.05)
    await pilot.pause(0.2)


async def capture(out: pathlib.Path, home: pathlib.Path = HOME) -> list[str]:
    from tui.app import AssistantAuthApp
    from tui.dev.server import TOKEN_PATH, AuthServer

    written: list[str] = []
    try:
        server = AuthServer(port=PORT, interval=2, user_code_factory=lambda: CODE).start()
    except OSError:
        server = AuthServer(interval=2, user_code_factory=lambda: CODE).start()
    port = server.url.rsplit(":", 1)[1]
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    os.environ.update(
        {
            "ASSISTANT_CODE_HOME": str(home),
            "ASSISTANT_OAUTH_HOST_CN": f"http://127.0.0.1:{port}",
            "ASSISTANT_OAUTH_HOST_GLOBAL": f"http://localhost:{port}",
            "ASSISTANT_BASE_URL_CN": f"http://127.0.0.1:{port}/cn/coding/v1",
            "ASSISTANT_BASE_URL_GLOBAL": f"http://localhost:{port}/global/coding/v1",
            "TZ": "UTC",
        }
    )
    time.tzset()
    (home / "config.toml").write_text(USER_CONFIG)

    def shot(app, name: str) -> None:
        app.save_screenshot(f"{name}.svg", str(out))
        written.append(f"{name}.svg")

    try:
        app = AssistantAuthApp(no_browser=True)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.3)
            shot(app, "01-home")
            await pilot.press("enter")
            await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
            await pilot.pause(2.5)
            shot(app, "02-code-and-polling")
            await pilot.press("r")
            await pilot.pause(0.3)
            shot(app, "03-qr-code")
            server.approve(CODE)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "DoneScreen")
            shot(app, "04-done")
            await pilot.press("escape", "enter")
            await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
            server.deny(CODE)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "OutcomeScreen")
            shot(app, "05-access-denied")
            server.inject(TOKEN_PATH, status=502, body="<html><h1>502 Bad Gateway</h1></html>", content_type="text/html")
            await pilot.press("enter")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "OutcomeScreen" and app.screen.kind == "error")
            shot(app, "06-error")
            await pilot.press("escape")
            (home / "credentials" / "old-session.json").write_text("{not json")
            await pilot.press("i")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "CredentialsScreen")
            shot(app, "07-credentials")
            await pilot.press("escape", "p")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ProvidersScreen")
            shot(app, "08-providers")
            field = app.screen.query_one("#field-base_url")
            field.focus()
            await pilot.press("end", *["backspace"] * len(field.value), *"https://proxy.example/v1")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
            shot(app, "09-save-diff")
            await pilot.press("n", "f2")
            await pilot.pause(0.3)
            shot(app, "10-raw-config")
    finally:
        server.stop()
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = pathlib.Path(args[0] if args else "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    for name in asyncio.run(capture(out)):
        print(out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
