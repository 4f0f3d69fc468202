"""What `assistant-auth` loads and does before its first screen is ready (docs/performance.md):
started as the console script starts it, in a new process, the first Ready reports the modules
loaded, and whether the garbage collector rested until then and runs again after it."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time

import pytest

from tests.conftest import write_creds
from tests.core.test_official_config import global_key, official
from tui.cli.home import run_app
from tui.core import MANAGED_PROVIDER, Region
from tui.core.spec.keys import region_storage_name
from tui.dev.coldstart import console_script

REPORT = """import gc, json, os, sys
paused = not gc.isenabled()
original(self)
report = {"modules": sorted(sys.modules), "paused": paused, "running_after": gc.isenabled()}
os.write(1, ("REPORT " + json.dumps(report) + "\\n").encode())"""

# what Home's first frame does not draw: other screens and dialogs, the TOML parsers (config.toml
# is parsed when status or the inspector ask for its providers), HTTP, the switch, and the
# package metadata (the version comes from the package itself)
NOT_AT_START = [
    "tomllib",
    "tomli",
    "tomlkit",
    "httpx",
    "secrets",
    "hashlib",  # OpenSSL: the global slot's name takes CPython's own SHA-256 (tui.core.spec.digest)
    "importlib.metadata",
    "tui.app.screens.confirm",
    "tui.app.screens.sign_in",
    "tui.app.screens.credentials",
    "tui.app.screens.providers",
    "tui.app.screens.doctor",
    "tui.app.screens.help",
    "tui.core.slots.switch",
    "tui.core.config.provider",
    "tui.core.spec.context",  # the core API's records: a slot's name is the rule's (keys.context_fields)
    "tui.core.signin.follow",  # the sign-in machinery and its record: only where a record is on disk
    "tui.core.signin.record",
]


def first_ready() -> dict:
    done = subprocess.run(
        [sys.executable, "-c", console_script(REPORT)],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=120,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("REPORT ")]
    assert done.returncode == 0 and lines, done.stderr[-2000:]
    return json.loads(lines[-1].removeprefix("REPORT "))


def signed_in(home) -> None:
    """The official client's config.toml and valid global credentials (what most homes hold)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        official(
            f'storage = "file"\nkey = "{global_key()}"\noauth_host = "{os.environ["ASSISTANT_OAUTH_HOST_GLOBAL"]}"\n'
        )
    )
    write_creds(
        home,
        {"access_token": "at", "refresh_token": "rt", "expires_at": int(time.time()) + 3600},
        region_storage_name(Region.GLOBAL),
    )


@pytest.mark.parametrize("shape", ["empty", "signed in"])
def test_the_first_screen_loads_only_what_it_draws(home, shape):
    if shape == "signed in":
        signed_in(home)
    report = first_ready()
    assert [name for name in NOT_AT_START if name in report["modules"]] == []
    assert "tui.app.screens.home" in report["modules"]


def test_the_collector_rests_until_the_first_frame_and_runs_after_it(home):
    report = first_ready()
    assert report["paused"] is True
    assert report["running_after"] is True


def test_the_collector_runs_again_when_the_app_fails_before_its_first_frame(home, monkeypatch):
    from tui.app import AssistantAuthApp

    def fails(self, **kwargs):
        assert not gc.isenabled()  # paused from the start, through the app's creation
        raise RuntimeError("no terminal")

    monkeypatch.setattr(AssistantAuthApp, "run", fails)
    with pytest.raises(RuntimeError):
        run_app()
    assert gc.isenabled()


def test_a_config_toml_that_does_not_parse_marks_the_slot_token_uses(home):
    """Home and `status` mark the slot the managed provider uses "and `token`": read the way
    `token` reads it, also when a table elsewhere in the file does not parse (the file's problem
    is still reported)."""
    from tui.core.person.overview import overview
    from tui.core.slots.choice import select, storage_name_of

    signed_in(home)
    config = home / "config.toml"
    config.write_text(config.read_text() + "\n[thinking]\nenabled = tru\n")
    view = overview()
    assert view.managed == storage_name_of(select()) == region_storage_name(Region.GLOBAL)
    assert view.config_problem is not None and "Failed to read assistant config" in view.config_problem.message
    assert MANAGED_PROVIDER in config.read_text()  # nothing was rewritten
