"""Config that others can write does not decide where tokens go (OpenSSH's StrictModes, for
config.toml): no refresh token is sent to a host read from a config.toml that others can write,
that is not yours, or that sits in a directory others can write. Readable is only a warning."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from tests.commands import run_command
from tests.conftest import needs_root, write_creds
from tui.core import Region
from tui.core.config.provider import provision_managed_provider
from tui.core.doctor import apply_repair, local_checks
from tui.core.spec.keys import region_key, region_storage_name


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return run_command(args, timeout=timeout, env=os.environ.copy())


def global_session(home, server, expired: bool = True) -> None:
    """A global sign-in: config.toml names the global host in the managed provider's oauth table."""
    tokens = {**server.issue_tokens(), "expires_at": 1 if expired else int(time.time()) + 600}
    write_creds(home, tokens, name=region_storage_name(Region.GLOBAL))
    provision_managed_provider(region_key(Region.GLOBAL), Region.GLOBAL)
    os.chmod(home, 0o700)
    os.chmod(home / "config.toml", 0o600)


@pytest.mark.parametrize(
    "exposure", ["world-writable", "group-writable", "open-directory", pytest.param("foreign-owner", marks=needs_root)]
)
def test_no_refresh_token_goes_to_a_host_from_a_config_others_control(home, server, exposure):
    global_session(home, server)
    config = home / "config.toml"
    if exposure == "world-writable":
        os.chmod(config, 0o666)
    elif exposure == "group-writable":
        os.chmod(config, 0o620)
    elif exposure == "open-directory":
        os.chmod(home, 0o777)
    else:
        os.chown(config, 65534, 65534)
    for command in ("token", "refresh"):
        done = run(command)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert "Refusing to send a refresh token" in done.stderr and "chmod go-w" in done.stderr
    assert server.refreshes() == []


def test_a_valid_token_is_still_handed_out(home, server):
    global_session(home, server, expired=False)
    os.chmod(home / "config.toml", 0o666)
    done = run("token")
    assert done.returncode == 0 and done.stdout.strip()  # nothing is sent anywhere


def test_a_readable_config_only_warns_and_refreshes(home, server):
    global_session(home, server)
    os.chmod(home / "config.toml", 0o644)
    assert run("token").returncode == 0 and len(server.refreshes()) == 1
    check = {c.name: c for c in local_checks()}["config.mode"]
    assert check.status == "warn"


def test_a_host_not_from_the_file_is_not_refused(home, server):
    """cn names no host in config.toml: the host comes from the environment, not from the file."""
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    provision_managed_provider(region_key(Region.CN), Region.CN)
    os.chmod(home / "config.toml", 0o666)
    assert run("token").returncode == 0 and len(server.refreshes()) == 1


def test_doctor_fails_and_repairs_an_open_config_holding_an_api_key(home, server):
    global_session(home, server)
    config = home / "config.toml"
    config.write_text(
        config.read_text() + '\n[providers.other]\nbase_url = "https://o.example/v1"\napi_key = "sk-live-123456"\n'
    )
    os.chmod(config, 0o666)
    check = {c.name: c for c in local_checks()}["config.mode"]
    assert check.status == "fail" and check.repair is not None
    done = run("doctor", "--offline", "--fix", "--yes")
    assert "config.mode" in done.stdout
    assert config.stat().st_mode & 0o777 == 0o600
    assert run("token").returncode == 0  # trusted again: the refresh goes through


def test_doctor_repair_of_the_config_mode_rechecks(home, server):
    global_session(home, server)
    config = home / "config.toml"
    os.chmod(config, 0o666)
    check = {c.name: c for c in local_checks()}["config.mode"]
    os.chmod(config, 0o664)  # changed meanwhile: the fact reported is no longer true
    apply_repair(check)
    assert check.repaired is None and "nothing done" in check.repair_failed
    assert config.stat().st_mode & 0o777 == 0o664


def test_a_sign_in_that_rewrites_an_exposed_config_says_so(home, server):
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    config.write_text("# mine\n")
    os.chmod(config, 0o644)
    server.auto_approve = 0
    done = run("login", "--no-tui")
    assert done.returncode == 0, done.stderr
    assert f"others can read {config}" in done.stderr and f"chmod 600 {config}" in done.stderr
    assert json.loads((home / "credentials" / "assistant-code.json").read_text())["access_token"]


async def test_the_wizard_says_so_on_done_too(home, server):
    from tests.app.helpers import screen_name, screen_text, wait_for
    from tui.app import AssistantAuthApp

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("# mine\n")
    os.chmod(home / "config.toml", 0o664)
    server.auto_approve = 0
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        assert "others can write" in screen_text(app) and "chmod go-w" in screen_text(app)
