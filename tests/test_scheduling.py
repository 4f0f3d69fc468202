"""The order the workers take the files in: the longest first, each file's tests in their order."""

import json
from types import SimpleNamespace

from tests.scheduling import CpuMeter, WeightRecorder, longest_first, weights


def items(*nodeids: str) -> list:
    return [SimpleNamespace(nodeid=n) for n in nodeids]


def test_longest_files_first_and_each_files_tests_keep_their_order():
    found = items("a.py::1", "a.py::2", "b.py::1", "c.py::1", "c.py::2", "d.py::1")
    longest_first(found, {"c.py": 40.0, "a.py": 5.0, "b.py": 90.0})
    assert [i.nodeid for i in found] == ["b.py::1", "c.py::1", "c.py::2", "a.py::1", "a.py::2", "d.py::1"]


def test_weights_of_a_missing_or_odd_file_are_none(tmp_path):
    assert weights(tmp_path / "absent.json") == {}
    odd = tmp_path / "weights.json"
    for text in ("not json", "[1, 2]", '{"a.py": "ten", "b.py": 3}'):
        odd.write_text(text)
        assert weights(odd) == ({"b.py": 3.0} if "b.py" in text else {})


def test_the_recorder_adds_every_phase_of_a_files_tests(tmp_path):
    out = tmp_path / "weights.json"
    recorder = WeightRecorder(out)
    for nodeid, seconds in (("a.py::1", 1.0), ("a.py::1", 0.5), ("b.py::1", 4.0), ("a.py::2", 2.0)):
        recorder.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, duration=seconds))
    recorder.pytest_sessionfinish()
    assert json.loads(out.read_text()) == {"b.py": 4.0, "a.py": 3.5}
    assert list(json.loads(out.read_text())) == ["b.py", "a.py"]


def test_the_committed_weights_name_files_that_exist():
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    missing = [name for name in weights() if not (root / name).is_file()]
    assert weights() and not missing, missing


def test_the_cpu_of_each_phase_rides_on_its_report_and_is_added_by_file(tmp_path):
    meter = CpuMeter()
    meter.pytest_runtest_logstart()
    sum(i * i for i in range(300_000))  # some CPU, in this process
    wrapper = meter.pytest_runtest_makereport(None, None)
    next(wrapper)
    report = SimpleNamespace(nodeid="a.py::1", duration=0.0, user_properties=[])
    try:
        wrapper.send(report)
    except StopIteration as done:
        assert done.value is report
    [(name, spent)] = report.user_properties
    assert name == "cpu" and spent > 0
    out, cpu = tmp_path / "weights.json", tmp_path / "cpu.json"
    recorder = WeightRecorder(out, cpu)
    recorder.pytest_runtest_logreport(report)
    recorder.pytest_runtest_logreport(SimpleNamespace(nodeid="a.py::2", duration=1.0, user_properties=[("cpu", 2.0)]))
    recorder.pytest_sessionfinish()
    assert json.loads(cpu.read_text()) == {"a.py": round(spent + 2.0, 1)}
