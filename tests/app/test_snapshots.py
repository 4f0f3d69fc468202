"""Every screen, compared with its accepted snapshot (`pytest-textual-snapshot`).

The scenes are those of `make screenshots` (`tui.dev.scenes`): clock, code, server and paths are
fixed, so a snapshot changes only when the screen does. After a deliberate change of a screen,
look at it and accept it with `.venv/bin/python -m pytest tests/app/test_snapshots.py
--snapshot-update`; the report of a failing comparison is written to snapshot_report.html.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from tui.dev.scenes import SCENES, build, staged

# what a token, refresh token or device code of the scenes would look like on screen
ACCEPTED = pathlib.Path(__file__).parent / "__snapshots__" / "test_snapshots"
SECRET = re.compile(r"eyJ[A-Za-z0-9_-]{8,}|rt-scene-0{8,}|scene-device-code")


ENGLISH = [scene for scene in SCENES if scene.lang == "en"]  # the Chinese ones: test_snapshots_zh.py


def matches_snapshot(scene, snap_compare, tmp_path) -> bool:
    with staged(tmp_path, scene.lang) as home:
        app = build(scene, home)
        return snap_compare(app, terminal_size=scene.size, run_before=scene.ready)


def assert_no_secret(accepted: pathlib.Path, scene) -> None:
    """The accepted snapshot is what the screen shows (the snapshot test fails otherwise), so no
    token, refresh token, device code or temporary path may be in it."""
    svg = (accepted / f"test_screen_matches_its_snapshot[{scene.name}].svg").read_text()
    assert not SECRET.search(svg)
    assert "/tmp/" not in svg and "pytest-of-" not in svg  # paths are shown from ~


@pytest.mark.parametrize("scene", ENGLISH, ids=[scene.name for scene in ENGLISH])
def test_screen_matches_its_snapshot(scene, snap_compare, tmp_path):
    assert matches_snapshot(scene, snap_compare, tmp_path)


@pytest.mark.parametrize("scene", ENGLISH, ids=[scene.name for scene in ENGLISH])
def test_no_secret_reaches_a_screen(scene):
    assert_no_secret(ACCEPTED, scene)
