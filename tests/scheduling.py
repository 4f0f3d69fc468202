"""The order in which `make test`'s workers take the test files: the longest first.

pytest-xdist's `--dist loadfile` hands each worker whole files, by default the files with the most
tests first. Our longest files have few tests (a wheel build, the crash-safety loops, the wizard
under every fault), so they came last and the run ended with one worker busy and seven idle: about
a minute of a five-minute run. Longest first (with `--no-loadscope-reorder`, xdist keeps this
order) ends the workers within seconds of each other.

`tests/weights.json` holds each file's seconds in a run of the whole suite on eight workers, measured
beside a CPU hog: on a loaded machine the files bound by CPU (the app's, the faults') take longest and
the order decides when the run ends; on a quiet one the files that mostly wait lead, and the run is short
either way. A file not in it (a new one) goes last, in collection order. Refresh it after a
file grows a lot, beside a hog in a session of its own (where the kernel groups sessions, as Linux's
autogroup does, that hog takes a whole core: the most loaded case), stopped after:

    setsid python3 -c "while True: pass" &
    .venv/bin/python -m pytest -q -n 8 --dist loadfile --no-loadscope-reorder --record-weights tests/weights.json
    pkill -f "while True: pass"
"""

from __future__ import annotations

import json
import pathlib
import resource
from collections import defaultdict
from collections.abc import Generator

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


def _cpu_now() -> float:
    """CPU-seconds of this process, of the children it has waited for (user and system) and of
    the commands it had forked by its warm server (`tests.commands`)."""
    from tests import commands

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + commands.cpu_seconds


class CpuMeter:
    """`--record-cpu PATH`, in each process that runs tests (an xdist worker, or a run without
    workers): the CPU-seconds each phase of a test spent (this process, in-process
    Textual apps, and every subprocess it waited for: a command, an agent it stopped, ssh) ride
    on each phase's report to the recorder. Orphans no test waits for are not counted (the
    subreaper wrapper of design-review-2 counts those for the whole run)."""

    def __init__(self) -> None:
        self.last = _cpu_now()

    def pytest_runtest_logstart(self) -> None:
        self.last = _cpu_now()  # from the test's own start: not collection, not the time between tests

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        now = _cpu_now()
        report.user_properties.append(("cpu", now - self.last))
        self.last = now
        return report


class WeightRecorder:
    """`--record-weights PATH`: each file's seconds (setup, call and teardown of its tests) in this
    run, written at its end. On xdist's controller the workers' reports arrive here too."""

    def __init__(self, path: pathlib.Path | None, cpu_path: pathlib.Path | None = None) -> None:
        self.path = path
        self.cpu_path = cpu_path
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.cpu: defaultdict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[file_of(report.nodeid)] += report.duration
        if self.cpu_path is not None:
            self.cpu[file_of(report.nodeid)] += sum(v for k, v in report.user_properties if k == "cpu")

    def pytest_sessionfinish(self) -> None:
        for path, figures in ((self.path, self.seconds), (self.cpu_path, self.cpu)):
            if path is not None:
                ordered = dict(sorted(((k, round(v, 1)) for k, v in figures.items()), key=lambda kv: -kv[1]))
                path.write_text(json.dumps(ordered, indent=1) + "\n")
