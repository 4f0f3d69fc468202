"""The order in which `make test`'s workers take the test files: the longest first.

pytest-xdist's `--dist loadfile` hands each worker whole files, by default the files with the most
tests first. Our longest files have few tests (a wheel build, the crash-safety loops, the wizard
under every fault), so they came last and the run ended with one worker busy and seven idle: about
a minute of a five-minute run. Longest first (with `--no-loadscope-reorder`, xdist keeps this
order) ends the workers within seconds of each other.

`tests/weights.json` holds each file's seconds in a run of the whole suite on eight workers; a file
not in it (a new one) goes last, in collection order. Refresh it after a file grows a lot:

    .venv/bin/python -m pytest -q -n 8 --dist loadfile --no-loadscope-reorder --record-weights tests/weights.json
"""

from __future__ import annotations

import json
import pathlib
from collections import defaultdict

import pytest

WEIGHTS = pathlib.Path(__file__).with_name("weights.json")


def weights(path: pathlib.Path = WEIGHTS) -> dict[str, float]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))} if isinstance(data, dict) else {}


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def longest_first(items: list[pytest.Item], seconds: dict[str, float]) -> None:
    """Reorder `items` in place: files by their weight, longest first; a file's own tests, and the
    files without a weight, keep their order (a stable sort)."""
    items.sort(key=lambda item: -seconds.get(file_of(item.nodeid), 0.0))


class WeightRecorder:
    """`--record-weights PATH`: each file's seconds (setup, call and teardown of its tests) in this
    run, written at its end. On xdist's controller the workers' reports arrive here too."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path
        self.seconds: defaultdict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[file_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self) -> None:
        ordered = dict(sorted(((k, round(v, 1)) for k, v in self.seconds.items()), key=lambda kv: -kv[1]))
        self.path.write_text(json.dumps(ordered, indent=1) + "\n")
