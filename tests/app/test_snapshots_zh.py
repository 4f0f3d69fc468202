"""The Chinese scenes (`tui.dev.scenes`, `lang="zh-CN"`), compared with their accepted snapshots:
the same checks as test_snapshots.py, in a file of their own so another test worker draws them
beside the English ones. Accept a deliberate change with `.venv/bin/python -m pytest
tests/app/test_snapshots_zh.py --snapshot-update`."""

from __future__ import annotations

import pathlib

import pytest

from tests.app.test_snapshots import SECRET
from tui.dev.scenes import SCENES, build, staged

ACCEPTED = pathlib.Path(__file__).parent / "__snapshots__" / "test_snapshots_zh"
CHINESE = [scene for scene in SCENES if scene.lang == "zh-CN"]


def test_there_are_chinese_scenes_at_both_sizes():
    assert {scene.size for scene in CHINESE} >= {(80, 24), (60, 18)}


@pytest.mark.parametrize("scene", CHINESE, ids=[scene.name for scene in CHINESE])
def test_screen_matches_its_snapshot(scene, snap_compare, tmp_path):
    with staged(tmp_path, scene.lang) as home:
        app = build(scene, home)
        assert snap_compare(app, terminal_size=scene.size, run_before=scene.steps)


@pytest.mark.parametrize("scene", CHINESE, ids=[scene.name for scene in CHINESE])
def test_no_secret_reaches_a_screen(scene):
    svg = (ACCEPTED / f"test_screen_matches_its_snapshot[{scene.name}].svg").read_text()
    assert not SECRET.search(svg)
    assert "/tmp/" not in svg and "pytest-of-" not in svg
