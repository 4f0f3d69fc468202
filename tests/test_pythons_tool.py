"""`tui/dev/pythons.py`'s prepared environments: made by `--prepare`, taken once by the next run."""

from tui.dev import pythons


def test_a_prepared_environment_is_taken_once(tmp_path, monkeypatch):
    monkeypatch.setattr(pythons, "ROOT", tmp_path)
    (tmp_path / ".venv-3.10").mkdir()
    assert not pythons._take_mark("3.10")  # nothing prepared: the run sets it up itself
    pythons.prepared_mark("3.10").touch()
    assert pythons._take_mark("3.10") and not pythons.prepared_mark("3.10").exists()
    assert not pythons._take_mark("3.10")  # used up: the run after sets it up again


def test_prepare_leaves_no_mark_when_the_environment_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(pythons, "ROOT", tmp_path)
    (tmp_path / ".venv-3.13").mkdir()
    pythons.prepared_mark("3.13").touch()  # an old mark is never kept over a failed setup
    monkeypatch.setattr(pythons, "environment", lambda *args: None)
    monkeypatch.setattr(pythons, "test_requirements", lambda names: [])
    problem = pythons.prepare("3.13", "/no/python3.13", tmp_path / "x.whl")
    assert problem is not None and problem.startswith("Python 3.13: could not build its environment")
    assert not pythons.prepared_mark("3.13").exists()


def test_nothing_found_prepares_nothing():
    assert pythons.prepare_all({"3.10": None, "3.13": None}) == 0


def test_the_installer_is_the_uv_beside_the_running_python_else_pip(tmp_path, monkeypatch):
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.touch()
    monkeypatch.setattr(pythons.sys, "executable", str(python))
    assert pythons.installer() is None  # no uv there: pip installs, as before
    uv = tmp_path / "bin" / "uv"
    uv.write_text("#!/bin/sh\n")
    assert pythons.installer() is None  # not runnable: not taken
    uv.chmod(0o755)
    assert pythons.installer() == str(uv)
