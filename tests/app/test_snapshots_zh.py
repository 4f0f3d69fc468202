"""The Chinese scenes (`tui.dev.scenes`, `lang="zh-CN"`), compared with their accepted snapshots:
the same checks as test_snapshots.py, in a file of their own so another test worker draws them
beside the English ones. Accept a deliberate change with `.venv/bin/python -m pytest
tests/app/test_snapshots_zh.py --snapshot-update`."""

from __future__ import annotations

import pathlib

import pytest

from tests.app.test_snapshots import assert_no_secret, matches_snapshot
from tui.dev.scenes import SCENES

ACCEPTED = pathlib.Path(__file__).parent / "__snapshots__" / "test_snapshots_zh"
CHINESE = [scene for scene in SCENES if scene.lang == "zh-CN"]


def test_there_are_chinese_scenes_at_both_sizes():
    assert {scene.size for scene in CHINESE} >= {(80, 24), (60, 18)}


@pytest.mark.parametrize("scene", CHINESE, ids=[scene.name for scene in CHINESE])
def test_screen_matches_its_snapshot(scene, snap_compare, tmp_path):
    assert matches_snapshot(scene, snap_compare, tmp_path)


@pytest.mark.parametrize("scene", CHINESE, ids=[scene.name for scene in CHINESE])
def test_no_secret_reaches_a_screen(scene):
    assert_no_secret(ACCEPTED, scene)
