"""A broken config.toml restored from the provider editor's `config.toml.bak`: offered only when the
file does not parse and the copy does, one position for one error, and attacked: the file or the
copy changed between the look and the act, a link or a FIFO at either name, another owner, a copy
that does not parse, a mended file. Nothing is lost: the broken file stays beside it."""

from __future__ import annotations

import json
import os
import stat

import pytest

from tests.commands import run_command
from tui.core.config.read import parse_config, parse_config_readonly
from tui.core.config.restore import backup_path, restore_offer
from tui.core.credentials.repairs import NotDone
from tui.core.errors import AuthError
from tui.core.spec import paths

GOOD = '# mine\r\n[providers.p]\r\nbase_url = "https://p.test/v1"\r\napi_key = "sk-secret-value-1234"\r\n'
BROKEN = GOOD + "[broken\r\n"


def planted(home, current: str = BROKEN, copy: str | None = GOOD):
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = home / "config.toml"
    path.write_bytes(current.encode())
    os.chmod(path, 0o600)
    if copy is not None:
        backup_path(path).write_bytes(copy.encode())
    return path


def test_one_error_has_one_position_in_both_parsers(home):
    text = "[a]\nx = 1\n[b\n"
    with pytest.raises(AuthError) as standard:
        parse_config_readonly(text)
    with pytest.raises(AuthError) as round_trip:
        parse_config(text)
    assert "line 3, column 3" in standard.value.message
    assert round_trip.value.message == standard.value.message


def test_restore_puts_the_copy_back_byte_for_byte_and_keeps_the_broken_file(home):
    path = planted(home)
    offer = restore_offer()
    assert offer is not None
    diff = offer.diff()
    assert "-[broken" in diff and "sk-secret-value-1234" not in diff  # masked, both sides
    done = offer.repair().apply()
    assert path.read_bytes() == GOOD.encode()  # CRLF, comment and order as the copy has them
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kept = [p for p in home.iterdir() if p.name.startswith("config.toml.corrupt-")]
    assert len(kept) == 1 and kept[0].read_bytes() == BROKEN.encode()
    assert str(kept[0].name) in str(done)
    assert restore_offer() is None  # parses now: nothing more to offer


@pytest.mark.parametrize(
    "case",
    [
        "parses",
        "no copy",
        "copy broken too",
        "copy the same",
        "copy a link",
        "copy a fifo",
        "file a link",
        "copy not mine",
    ],
)
def test_nothing_is_offered_where_a_restore_is_not_safe(home, tmp_path, case):
    copy = {"no copy": None, "copy broken too": BROKEN + "x", "copy the same": BROKEN}.get(case, GOOD)
    path = planted(
        home, GOOD if case == "parses" else BROKEN, copy if case not in ("copy a link", "copy a fifo") else None
    )
    if case == "copy a link":
        (tmp_path / "elsewhere.toml").write_text(GOOD)
        backup_path(path).symlink_to(tmp_path / "elsewhere.toml")
    elif case == "copy a fifo":
        os.mkfifo(backup_path(path))
    elif case == "file a link":
        target = tmp_path / "real.toml"
        target.write_text(BROKEN)
        path.unlink()
        path.symlink_to(target)
    elif case == "copy not mine":
        if os.geteuid() != 0:
            pytest.skip("needs root to give the copy to another user")
        os.chown(backup_path(path), 65534, 65534)
    assert restore_offer() is None


@pytest.mark.parametrize("change", ["file edited", "file mended", "copy edited", "copy removed"])
def test_a_change_between_the_look_and_the_act_stops_the_restore(home, change):
    path = planted(home)
    repair = restore_offer().repair()
    if change == "file edited":
        path.write_text(BROKEN + "# more\n")
    elif change == "file mended":
        path.write_text(GOOD + "# mended\n")
    elif change == "copy edited":
        backup_path(path).write_text(GOOD + "# other\n")
    else:
        backup_path(path).unlink()
    before = path.read_bytes()
    with pytest.raises(NotDone):
        repair.apply()
    assert path.read_bytes() == before  # nothing written
    assert not [p for p in home.iterdir() if p.name.startswith("config.toml.corrupt-")]


def test_doctor_offers_the_restore_and_fix_applies_it(home):
    planted(home)
    report = run_command(["doctor", "--json", "--offline"], env=os.environ.copy())
    check = next(c for c in json.loads(report.stdout)["checks"] if c["name"] == "config.parse")
    assert check["status"] == "fail" and "line 5, column 8" in check["finding"]
    assert "Restore the copy from before the provider editor's save at " in check["fix"]  # what the copy is
    fixed = run_command(["doctor", "--fix", "--yes", "--offline"], env=os.environ.copy())
    assert "-[broken" in fixed.stderr and "sk-secret-value-1234" not in fixed.stderr + fixed.stdout  # the diff, masked
    assert "restored" in fixed.stderr
    assert (paths.config_path()).read_bytes() == GOOD.encode()


def test_the_editor_never_saves_what_its_reader_refuses(home):
    """#58 6: a large paste made config.toml larger than its reader takes; the save is refused
    before anything is written (and doctor --fix then offers the good copy: below)."""
    from tui.core.config.edit import load_snapshot, save_snapshot
    from tui.core.errors import AuthError

    path = planted(home, current=GOOD, copy=None)
    snapshot = load_snapshot(path)
    with pytest.raises(AuthError, match="more than its readers take"):
        save_snapshot(snapshot, GOOD + "# pasted\n" * 200_000)
    assert path.read_bytes() == GOOD.encode() and not backup_path(path).exists()


def test_doctor_fix_restores_a_file_too_large_to_read(home):
    from tests.cli.test_cli import run

    path = planted(home, current=GOOD + "# pasted\n" * 200_000)
    done = run("doctor", "--fix", "--yes")
    assert f"repaired: restored {path} from {backup_path(path)}" in done.stdout, done.stdout
    assert path.read_bytes() == GOOD.encode()
