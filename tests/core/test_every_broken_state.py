"""Credentials as they really break (#56): one reading of a slot file that every view and every
use shares, and every doctor check run against every state a slot and config.toml can be in."""

from __future__ import annotations

import json
import os
import pathlib

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import write_creds
from tui.core.config.provider import provision_managed_provider
from tui.core.credentials.refresh import read_valid_token
from tui.core.credentials.slot import load_credentials
from tui.core.doctor.runner import local_checks
from tui.core.errors import AuthError, Problem
from tui.core.slots.advice import next_step
from tui.core.slots.state import BROKEN, DANGLING, EMPTY_FILE, MISSING, UNREADABLE, VALID, slot_status
from tui.core.spec.keys import account_key, account_slot, region_storage_name
from tui.core.spec.regions import Region

FUTURE = 4_000_000_000
SLOT = "assistant-code"


def _write(home: pathlib.Path, name: str, content: object) -> pathlib.Path:
    return write_creds(home, content if isinstance(content, str) else json.dumps(content), name)


def _fifo(home: pathlib.Path, name: str) -> None:
    path = home / "credentials" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.mkfifo(path, 0o600)


def _dangling(home: pathlib.Path, name: str) -> None:
    path = home / "credentials" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.symlink_to(home.parent / "dotfiles-that-moved" / "kimi-code.json")


def _directory(home: pathlib.Path, name: str) -> None:
    (home / "credentials" / f"{name}.json").mkdir(parents=True, mode=0o700)


SLOT_STATES = {
    "absent": None,
    "valid": {"access_token": "at", "refresh_token": "rt", "expires_at": FUTURE},
    "expired": {"access_token": "at", "refresh_token": "rt", "expires_at": 1},
    "expired, no refresh token": {"access_token": "at", "expires_at": 1},
    "revoked": {"access_token": "", "refresh_token": "", "expires_at": 0},
    "expires_at a string": {"access_token": "at", "refresh_token": "rt", "expires_at": "1795880980"},
    "refresh_token a number": {"access_token": "at", "refresh_token": 12345, "expires_at": FUTURE},
    "no access_token": {"refresh_token": "rt"},
    "a list": "[1, 2]",
    "not JSON": "{not json",
    "empty": "",
    "white space": "  \n",
    "not UTF-8": b"\xff\xfe{}".decode("latin-1"),
    "a FIFO": _fifo,
    "a directory": _directory,
    "a dangling link": _dangling,
}

CONFIGS = ["none", "managed: cn", "managed: global", "managed: a named account with no file", "unparsable"]


def _set_up(home: pathlib.Path, slot_state: str, config: str) -> None:
    home.mkdir(mode=0o700, exist_ok=True)
    content = SLOT_STATES[slot_state]
    if callable(content):
        content(home, SLOT)
    elif content is not None:
        _write(home, SLOT, content)
    if config == "managed: cn":
        provision_managed_provider(account_key(Region.CN, "default"), Region.CN)
    elif config == "managed: global":
        provision_managed_provider(account_key(Region.GLOBAL, "default"), Region.GLOBAL)
    elif config == "managed: a named account with no file":
        provision_managed_provider(account_key(Region.CN, "work"), Region.CN)
    elif config == "unparsable":
        (home / "config.toml").write_text("[providers\nbroken = \n")


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("slot_state", list(SLOT_STATES))
def test_every_doctor_check_runs_on_every_state(home, slot_state, config):
    """No check may fail to run (`This check could not run: StopIteration` was doctor's answer
    after a plain logout): each says what it found, with a next step where one is needed."""
    _set_up(home, slot_state, config)
    checks = local_checks()
    assert checks
    for check in checks:
        assert "could not run" not in check.finding, (check.name, check.finding)
        if check.status == "fail":
            assert check.fix or check.repair is not None, (check.name, check.finding)


@pytest.mark.parametrize("slot_state", [s for s in SLOT_STATES if s != "absent"])
def test_what_a_view_calls_usable_token_can_use_and_what_it_cannot_is_named(home, slot_state):
    _set_up(home, slot_state, "none")
    status = slot_status(SLOT)
    try:
        load_credentials(SLOT)
    except AuthError as exc:
        assert not status.usable, (slot_state, status.state)
        assert status.state in (*BROKEN, DANGLING, UNREADABLE), (slot_state, status.state, exc.message)
        assert exc.kind in (Problem.DAMAGED, Problem.NOT_SIGNED_IN)
    else:
        assert status.state not in BROKEN, (slot_state, status.state)
    if status.state == VALID:
        assert read_valid_token(None, "https://api.test/v1") == "at"
    assert next_step(status) or status.usable


def test_an_empty_file_is_said_to_be_empty(home):
    _write(home, SLOT, "")
    status = slot_status(SLOT)
    assert status.state == EMPTY_FILE and "0 bytes" in status.detail
    with pytest.raises(AuthError, match="the file is empty"):
        load_credentials(SLOT)


def test_a_dangling_link_is_a_link_with_its_target_and_both_repairs(home):
    _dangling(home, SLOT)
    status = slot_status(SLOT)
    assert status.state == DANGLING and status.state != MISSING
    assert status.link is not None and status.link.endswith("dotfiles-that-moved/kimi-code.json")
    assert status.to_dict()["link"] == status.link
    step = next_step(status)
    assert "restore" in step and f"rm {status.path}" in step and "assistant-auth login" in step
    from tests.cli.test_cli import run

    token = run("token")  # never "sign in first": a sign-in could not write through the link either
    assert token.returncode == 1 and "a symbolic link to" in token.stderr and f"rm {status.path}" in token.stderr
    assert "sign in first" not in token.stderr


@pytest.mark.parametrize(
    ("region", "account", "command"),
    [
        (Region.CN, None, "assistant-auth login"),
        (Region.GLOBAL, None, "assistant-auth login --region global"),
        (Region.GLOBAL, "work", "assistant-auth login --account work --region global"),
    ],
)
def test_the_advice_for_a_revoked_or_broken_slot_is_that_slots_own_sign_in(home, region, account, command):
    name = account_slot(region, account) if account else region_storage_name(region)  # the settings are set now
    for content in ({"access_token": "", "refresh_token": "", "expires_at": 0}, "{not json", ""):
        _write(home, name, content)
        step = next_step(slot_status(name))
        assert step.endswith(command) or f"`{command}`" in step, step


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x7E), max_size=8),
    st.lists(st.integers(), max_size=2),
)
_fields = st.dictionaries(
    st.sampled_from(["access_token", "refresh_token", "expires_at", "expires_in", "scope", "token_type", "x"]),
    _values,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_fields)
def test_any_object_is_read_the_same_way_by_views_and_by_token(home, data):
    """Whatever the fields' types: a file the views call usable loads for `token`, and one that
    `token` refuses is one the views call broken (and offer to move aside)."""
    _write(home, SLOT, data)
    status = slot_status(SLOT)
    try:
        load_credentials(SLOT)
    except AuthError:
        assert status.state in BROKEN and not status.usable
    else:
        assert status.state not in BROKEN


def test_a_revoked_global_session_is_never_sent_to_sign_in_cn(home):
    """`token`, `refresh`, `status` and doctor on a global session the server revoked: each names
    `login --region global` (a plain `login` signs in cn and moves the managed provider there)."""
    from tests.cli.test_cli import run

    provision_managed_provider(account_key(Region.GLOBAL, "default"), Region.GLOBAL)
    _write(home, region_storage_name(Region.GLOBAL), {"access_token": "", "refresh_token": "", "expires_at": 0})
    for command in (["token"], ["refresh"], ["status"], ["doctor", "--offline"]):
        result = run(*command)
        assert result.returncode == 1, (command, result.stdout, result.stderr)
        said = result.stdout + result.stderr
        assert "assistant-auth login --region global" in said, (command, said)
        assert "`assistant-auth login`" not in said and not said.rstrip().endswith("assistant-auth login"), command


@pytest.mark.parametrize("command", [["token"], ["refresh"], ["login", "--no-tui", "--force"]])
def test_a_missing_ssl_cert_file_is_named_with_its_path_and_is_no_sign_in_problem(home, monkeypatch, command):
    from tests.cli.test_cli import run

    _write(home, SLOT, {"access_token": "at", "refresh_token": "rt", "expires_at": 1})
    missing = home.parent / "corp" / "ca-bundle.pem"
    monkeypatch.setenv("SSL_CERT_FILE", str(missing))
    result = run(*command, input="")
    assert result.returncode == 2, (result.stdout, result.stderr)  # usage: a setting to change (docs/commands.md)
    assert f"SSL_CERT_FILE is {missing}, but it does not exist or is not a file" in result.stderr
    assert "Point SSL_CERT_FILE at a PEM bundle that exists, or unset it." in result.stderr
    assert "sign in" not in result.stderr.lower() and "Traceback" not in result.stderr
    assert read_json_or_none(home / "credentials" / f"{SLOT}.json") == {
        "access_token": "at",
        "refresh_token": "rt",
        "expires_at": 1,
    }


def read_json_or_none(path: pathlib.Path) -> object:
    return json.loads(path.read_text()) if path.exists() else None


def test_a_managed_provider_on_the_other_regions_api_fails_doctor_and_switch_mends_it(home):
    """A backup of config.toml from the other region: the key and tokens are cn's, base_url the
    global API. doctor fails it with a repair; `switch --region cn` (already cn's slot) mends only
    the region's fields; comments and other tables stay."""
    from tests.cli.test_cli import run
    from tui.core.spec import settings

    _write(home, SLOT, SLOT_STATES["valid"])
    provision_managed_provider(account_key(Region.CN, "default"), Region.CN)
    config = home / "config.toml"
    cn_api, global_api = settings.base_url("cn"), settings.base_url("global")
    config.write_text("# mine\n" + config.read_text().replace(cn_api, global_api) + "\n[other]\nx = 1 # kept\n")
    result = run("doctor", "--offline", "--json")
    check = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "config.base_url")
    assert check["status"] == "fail" and "would send cn's tokens to the global API" in check["finding"]
    assert "assistant-auth switch --region cn" in check["fix"] and check["repair"]
    result = run("switch", "--region", "cn")
    assert result.returncode == 0 and "base_url and host are cn's again" in result.stdout, result
    text = config.read_text()
    assert cn_api in text and global_api not in text
    assert text.startswith("# mine\n") and "x = 1 # kept" in text
    check = next(
        c for c in json.loads(run("doctor", "--offline", "--json").stdout)["checks"] if c["name"] == "config.base_url"
    )
    assert check["status"] == "ok"
    config.write_text(config.read_text().replace(cn_api, global_api))
    result = run("doctor", "--offline", "--fix", "--yes")
    assert cn_api in config.read_text() and global_api not in config.read_text(), result.stdout


def test_doctor_names_the_live_holder_of_a_slots_lock_and_never_removes_it(home):
    """A lock held by a live process (a refresh hanging on a dead network): doctor says which
    process (pid and program) and what to do; --fix leaves the lock file alone."""
    import subprocess
    import sys

    from tests.cli.test_cli import run

    _write(home, SLOT, SLOT_STATES["valid"])
    lock = home / "credentials" / f"{SLOT}.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
            "print('held', flush=True); time.sleep(600)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        report = json.loads(run("doctor", "--offline", "--json").stdout)
        check = next(c for c in report["checks"] if c["name"] == f"files.lock.{SLOT}.lock")
        assert check["status"] == "warn" and check["details"]["pid"] == holder.pid
        assert f"process {holder.pid} (" in check["finding"] and "python" in check["details"]["program"]
        assert f"kill {holder.pid}" in check["fix"] and check["repair"] is None
        run("doctor", "--offline", "--fix", "--yes")
        assert lock.exists()
    finally:
        holder.kill()
        holder.wait()


def test_a_managed_provider_naming_a_slot_with_no_file_gets_the_exact_commands(home):
    """config.toml names cn, only global is signed in (a backup from another region, a sign-out):
    the advice is that slot's sign-in and the exact switch to the account signed in here, never
    `switch --region …`."""
    from tests.cli.test_cli import run

    provision_managed_provider(account_key(Region.CN, "default"), Region.CN)
    _write(home, region_storage_name(Region.GLOBAL), SLOT_STATES["valid"])
    report = json.loads(run("doctor", "--offline", "--json").stdout)
    wanted = "`assistant-auth switch --region global`"
    for name in ("config.managed", "accounts.active"):
        check = next(c for c in report["checks"] if c["name"] == name)
        assert wanted in check["fix"] and "(`assistant-auth login`)" in check["fix"], check
        assert "…" not in check["fix"]
    status = run("status")
    assert "To sign in: assistant-auth login\n" in status.stdout and status.returncode == 1
    assert "Or switch to an account signed in here: assistant-auth switch --region global" in status.stdout


MODELS = """# my models
default_model = "{default}"

[models."assistant-code/assistant-for-coding"]
provider = "{provider}"
model = "assistant-for-coding"

[thinking]
enabled = true # kept
"""


@pytest.mark.parametrize(
    ("default", "provider", "failing"),
    [
        ("assistant-code/assistant-for-coding", "managed:assistant-code", set()),
        ("assistant-code/gone", "managed:assistant-code", {"config.default_model"}),
        (
            "assistant-code/assistant-for-coding",
            "managed:nobody",
            {"config.models.assistant-code/assistant-for-coding"},
        ),
    ],
)
def test_doctor_checks_the_official_clients_model_references(home, default, provider, failing):
    """A model naming a provider that does not exist, or a default_model naming no model: the
    official client would start with no model (#56 12). A default_model naming nothing, with one
    usable model, is repaired by pointing it there; comments and other tables stay."""
    from tests.cli.test_cli import run

    _write(home, SLOT, SLOT_STATES["valid"])
    provision_managed_provider(account_key(Region.CN, "default"), Region.CN)
    config = home / "config.toml"
    config.write_text(MODELS.format(default=default, provider=provider) + "\n" + config.read_text())
    report = json.loads(run("doctor", "--offline", "--json").stdout)
    named = {c["name"]: c for c in report["checks"] if c["name"].startswith(("config.models", "config.default_model"))}
    assert {name for name, c in named.items() if c["status"] == "fail"} == failing
    if not failing:
        assert named["config.models"]["status"] == "ok"
        return
    check = named[next(iter(failing))]
    assert check["fix"]
    if "config.default_model" in failing:
        assert check["repair"] and "assistant-code/assistant-for-coding" in check["repair"]
        run("doctor", "--offline", "--fix", "--yes")
        text = config.read_text()
        assert 'default_model = "assistant-code/assistant-for-coding"' in text
        assert text.startswith("# my models\n") and "enabled = true # kept" in text
    else:
        assert check["repair"] is None  # no safe repair: which provider was meant is not known
