"""Account truth on the command line: identity, selectors, switch, exit codes, version, completion."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.cli.test_cli import SCRIPT, expired, run, valid
from tests.conftest import write_creds
from tui.core import Region
from tui.core.config.provider import provision_managed_provider
from tui.core.slots.switch import managed_region
from tui.core.spec.keys import region_key, region_storage_name
from tui.demo.server import TOKEN_PATH, Fault


def global_slot() -> str:  # computed with the rule, under the test's settings
    return region_storage_name("global")


def cn_slot() -> str:
    return region_storage_name("cn")


def both_regions(home, server) -> None:
    write_creds(home, valid(server), name=cn_slot())
    write_creds(home, {**server.issue_tokens(subject="user-g"), "expires_at": 4102444800}, name=global_slot())
    provision_managed_provider(region_key(Region.CN), Region.CN)


def test_status_names_who_is_signed_in_and_explains_the_marker(home, server):
    both_regions(home, server)
    text = run("status")
    assert text.returncode == 0
    assert "Signed in as user-1 · cn (used by the managed provider)" in text.stdout
    assert "Signed in as user-g · global" in text.stdout
    assert "* the slot `assistant-auth token` uses" in text.stdout
    data = json.loads(run("status", "--json").stdout)
    assert data["schema_version"] == 1 and data["managed_slot"] == cn_slot()
    by_name = {slot["name"]: slot for slot in data["slots"]}
    assert by_name[global_slot()]["identity"] == "user-g" and by_name[global_slot()]["region"] == "global"
    for slot in data["slots"]:
        assert "access_token" not in json.dumps(slot) and "eyJ" not in json.dumps(slot)


def test_switch_moves_the_managed_provider_and_says_the_official_client_follows(home, server):
    both_regions(home, server)
    done = run("switch", "--region", "global")
    assert done.returncode == 0, done.stderr
    assert "now uses global (user-g)" in done.stdout and "official client" in done.stdout
    assert managed_region() is Region.GLOBAL
    token = run("token")  # the managed provider now means the global slot
    assert token.returncode == 0
    assert (
        token.stdout.strip() == json.loads((home / "credentials" / f"{global_slot()}.json").read_text())["access_token"]
    )


@pytest.mark.parametrize(
    "content", [None, {"access_token": "", "refresh_token": "", "expires_at": 0}], ids=["missing", "revoked"]
)
def test_switch_refuses_a_region_without_usable_credentials(home, server, content):
    write_creds(home, valid(server), name=cn_slot())
    provision_managed_provider(region_key(Region.CN), Region.CN)
    if content is not None:
        write_creds(home, content, name=global_slot())
    done = run("switch", "--region", "global")
    assert done.returncode == 1
    assert "Cannot switch to global" in done.stderr and "assistant-auth login --region global" in done.stderr
    assert managed_region() is Region.CN


@pytest.mark.parametrize("by", ["region", "slot"])
def test_selectors_reach_every_slot_status_lists(home, server, by):
    both_regions(home, server)
    selector = ["--region", "global"] if by == "region" else ["--slot", global_slot()]
    assert json.loads(run("status", "--json", *selector).stdout)["selected"] == global_slot()
    token = run("token", *selector)
    assert token.returncode == 0 and token.stdout.strip().startswith("eyJ")
    refreshed = run("refresh", *selector)
    assert refreshed.returncode == 0 and "Refreshed global: access token expires" in refreshed.stdout
    assert "Signed in as user-g · global" in refreshed.stdout
    out = run("logout", "--yes", *selector)
    assert out.returncode == 0 and not (home / "credentials" / f"{global_slot()}.json").exists()
    assert (home / "credentials" / f"{cn_slot()}.json").exists()


def test_conflicting_selectors_are_a_usage_error(home):
    for command in ("token", "status", "refresh", "logout"):
        result = run(command, "--slot", "x", "--region", "cn")
        assert result.returncode == 2 and "choose one of" in result.stderr, command


@pytest.mark.parametrize("command", ["token", "refresh"])
def test_transient_trouble_has_its_own_exit_code(home, server, command):
    write_creds(home, expired(server))
    server.inject(TOKEN_PATH, Fault(status=503, body="busy", content_type="text/plain"))
    result = run(command)
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith("login expired and refresh failed (HTTP 503)")
    assert "the stored tokens are kept; retry" in result.stderr
    rejected = run(command)  # the refresh token itself now fails: sign in again is 1
    server.inject(TOKEN_PATH, Fault(status=400, body='{"error": "invalid_grant"}'))
    assert rejected.returncode == 0  # the 503 was transient: the next call refreshed
    write_creds(home, expired(server))
    server.inject(TOKEN_PATH, Fault(status=400, body='{"error": "invalid_grant"}'))
    assert run(command).returncode == 1


def test_version_and_help_for_every_option():
    assert run("--version").stdout.strip() == "assistant-auth 0.1.0"
    for command in ("login", "status", "token", "refresh", "logout", "switch", "completion", "demo"):
        text = run(command, "--help").stdout
        assert "usage: assistant-auth" in text, command
        for line in text.splitlines():
            if line.strip().startswith("--") and "  " in line.strip():
                assert line.strip().split("  ", 1)[1].strip(), f"{command}: {line}"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts(shell):
    result = run("completion", shell)
    assert result.returncode == 0 and "assistant-auth" in result.stdout and "_ARGCOMPLETE" in result.stdout


@pytest.mark.parametrize(
    "line, expected", [("assistant-auth sw", "switch"), ("assistant-auth logout --re", "--region")]
)
def test_completion_answers_the_shell(home, line, expected):
    """What a shell does on Tab: run the command with argcomplete's variables, read fd 8."""
    import os
    import subprocess

    from tests.cli.test_cli import SCRIPT

    env = {**os.environ, "_ARGCOMPLETE": "1", "COMP_LINE": line, "COMP_POINT": str(len(line)), "_ARGCOMPLETE_IFS": "\n"}
    done = subprocess.run(["sh", "-c", f'exec "{SCRIPT}" 8>&1'], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and expected in done.stdout.split()


def test_login_does_not_replace_a_usable_session_without_force(home, server):
    write_creds(home, valid(server))
    refused = run("login", "--no-tui")
    assert refused.returncode == 2 and "pass --force" in refused.stderr and "Signed in as user-1 · cn" in refused.stderr
    assert server.count() == 0
    server.auto_approve = 0.5
    forced = run("login", "--no-tui", "--force", "--no-browser")
    assert forced.returncode == 0 and "Signed in as user-1 · cn." in forced.stderr


def test_login_without_a_terminal_prints_a_line_per_change_of_state(home, server):
    server.auto_approve = 3.0  # about three polls at interval 1
    result = run("login", "--no-tui", "--no-browser")
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    assert sum("Waiting for approval" in line for line in lines) == 1, result.stderr
    assert len(lines) <= 8, result.stderr


def test_switch_without_region_takes_the_other_signed_in_region(home, server):
    both_regions(home, server)
    provision_managed_provider(region_key(Region.CN), Region.CN)
    done = run("switch")
    assert done.returncode == 0 and managed_region() is Region.GLOBAL
    done = run("switch")  # and back
    assert done.returncode == 0 and managed_region() is Region.CN


def test_switching_to_the_region_in_use_says_so(home, server):
    both_regions(home, server)
    provision_managed_provider(region_key(Region.CN), Region.CN)
    done = run("switch", "--region", "cn")
    assert done.returncode == 0 and "already uses cn" in done.stdout


def test_switch_without_a_name_with_nothing_else_signed_in_says_what_adds_one(home, server):
    write_creds(home, valid(server), name=cn_slot())  # no managed provider yet: the one account becomes it
    done = run("switch")
    assert done.returncode == 0 and "now uses cn (user-1)" in done.stdout
    assert managed_region() is Region.CN
    done = run("switch")  # nothing else is signed in
    assert done.returncode == 1 and "cn is the only account signed in" in done.stderr
    assert "login --account NAME" in done.stderr and "login --region global" in done.stderr


def complete(line: str, home) -> list[str]:
    """What the shell's completion gets for `line` (argcomplete's protocol, as bash calls it)."""
    out = home.parent / "completion.out"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(out),
        "_ARGCOMPLETE_IFS": "\n",
        "_ARGCOMPLETE_SUPPRESS_SPACE": "1",
    }
    command = [SCRIPT] if SCRIPT else [sys.executable, "-m", "tui.cli"]
    subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    return sorted(word.strip() for word in out.read_text().split("\n") if word.strip())


def test_completion_offers_regions_slots_and_providers(home):
    write_creds(home, {"access_token": "AT-1"})
    write_creds(home, {"access_token": "AT-2"}, name="assistant-code-env-0123456789abcdef")
    provision_managed_provider(region_key(Region.CN), Region.CN)
    assert complete("assistant-auth login --region ", home) == ["cn", "global"]
    assert complete("assistant-auth switch --region g", home) == ["global"]
    assert complete("assistant-auth status --slot ", home) == ["assistant-code", "assistant-code-env-0123456789abcdef"]
    assert complete("assistant-auth token --slot assistant-code-", home) == ["assistant-code-env-0123456789abcdef"]
    assert complete("assistant-auth token --provider ", home) == ["managed:assistant-code"]
