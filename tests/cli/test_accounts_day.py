"""A working day with several accounts (#52), as a `gh auth` user walks it: doctor on a named
account, exit codes of a name that does not fit, the active account signed out of, bare `switch`,
the same person signed in twice, the region `login --account` chose, accounts named as accounts."""

from __future__ import annotations

import json

from tests.cli.test_accounts import sign_in, two  # noqa: F401 - the fixture
from tests.cli.test_cli import run
from tui.core.keys import account_slot
from tui.core.regions import endpoints


def test_doctor_knows_a_named_accounts_key_as_ours(two, server):  # noqa: F811
    done = run("doctor", "--json")
    checks = {check["name"]: check for check in json.loads(done.stdout)["checks"]}
    assert checks["config.oauth_host"]["status"] == "ok", checks["config.oauth_host"]
    assert done.returncode == 0, done.stdout
    assert "was not made for" not in run("doctor").stdout
    assert run("switch", "work").returncode == 0
    assert run("doctor").returncode == 0


def test_doctor_still_catches_an_account_key_naming_another_regions_host(two, server):  # noqa: F811
    config = two / "config.toml"
    cn_host, global_host = endpoints("cn").oauth_host, endpoints("global").oauth_host
    assert cn_host != global_host
    config.write_text(config.read_text().replace(f'oauthHost = "{cn_host}"', f'oauthHost = "{global_host}"'))
    done = run("doctor")
    assert done.returncode == 1
    personal = account_slot("cn", "personal")
    assert f"its key oauth/{personal} was not made for oauthHost {global_host}" in done.stdout
    assert "assistant-auth switch personal --region cn" in done.stdout  # a next step that clears it
    assert run("switch", "work").returncode == 0 and run("switch", "personal").returncode == 0
    assert run("doctor").returncode == 0


COMMANDS = [
    ("token",),
    ("token", "--json"),
    ("exec", "--", "true"),
    ("refresh",),
    ("inspect",),
    ("status",),
    ("status", "--json"),
    ("logout", "--yes"),
]


def test_a_name_that_does_not_fit_is_a_usage_error_in_every_command(home, server):
    sign_in(server, "work", "alice")
    sign_in(server, "work", "alice-global", "--region", "global")
    for name in ("nobody", "work"):  # unknown; in both regions without --region
        for command in COMMANDS:
            args = [command[0], "--account", name, *command[1:]]
            done = run(*args)
            assert done.returncode == 2, (args, done.stdout, done.stderr)
            assert "Traceback" not in done.stderr
        for args in (("switch", name),):
            assert run(*args).returncode == 2, args
    assert len(list((home / "credentials").glob("*.json"))) == 2  # nothing signed out or written
