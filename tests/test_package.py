"""The wheel a user's pip builds: no warning, the styles, the type marker and the LICENSE inside,
and, installed into a fresh virtual environment (not editable), a working `assistant-auth`."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import sysconfig
import venv
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
LOCALE_VARIABLES = ("ASSISTANT_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def test_the_wheel_builds_cleanly_and_runs_from_a_fresh_environment(tmp_path):
    # a module an earlier build left in setuptools' build directory (moved or removed since) never ships
    stale = ROOT / "build" / "lib" / "tui" / "core" / "left_by_an_earlier_build.py"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text("raise ImportError('stale')\n")
    try:
        built = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(ROOT)],
            capture_output=True,
            text=True,
            timeout=240,
        )
    finally:
        stale.unlink(missing_ok=True)
    assert built.returncode == 0, built.stderr
    assert "warning" not in (built.stdout + built.stderr).lower().replace("warning: ignoring invalid", "")
    [wheel] = list((tmp_path / "dist").glob("assistant_auth-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"tui/py.typed", "tui/app/app.tcss", "tui/app/screens/sign_in.tcss", "tui/demo/server.py"} <= names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert not any(n.startswith("tests/") for n in names)
    sources = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tui").rglob("*.py")}
    assert {n for n in names if n.endswith(".py")} <= sources  # what the tree holds, nothing an old build left

    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=False)  # installed into by this pip (`--python`): no pip bootstrapped per run
    python = fresh / "bin" / "python"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert installed.returncode == 0, installed.stderr
    # the dependencies (not the project) from the test environment, behind the fresh site-packages
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (pathlib.Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    home = tmp_path / "home"
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(home), "HOME": str(tmp_path)}
    where = subprocess.run(
        [str(python), "-c", "import tui; print(tui.__file__)"], capture_output=True, text=True, env=env, cwd=tmp_path
    )  # not the checkout's directory: `-c` puts it first on sys.path
    assert where.stdout.strip().startswith(str(fresh)), where  # the wheel's copy, not the checkout
    script = fresh / "bin" / "assistant-auth"
    version = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path
    )
    assert version.returncode == 0 and version.stdout.strip() == "assistant-auth 0.1.0"
    status = subprocess.run([str(script), "status"], capture_output=True, text=True, env=env, timeout=60, cwd=tmp_path)
    assert status.returncode == 1 and "Traceback" not in status.stderr  # nothing signed in yet
    assert "assistant-code" in status.stdout + status.stderr
    # the message catalogs, compiled by the project's build: the wheel has the .mo, not the source
    assert "tui/locale/zh_CN/LC_MESSAGES/assistant-auth.mo" in names
    assert not any(n.endswith(".po") for n in names)
    chinese = subprocess.run(
        [str(python), "-c", "from tui.core.text.i18n import _; print(_('Not signed in'))"],
        capture_output=True,
        text=True,
        env={**{k: v for k, v in env.items() if k not in LOCALE_VARIABLES}, "LANG": "zh_CN.UTF-8"},
        cwd=tmp_path,
    )
    assert chinese.stdout.strip() == "未登录", chinese
    # the reference pages, shipped: `help agent` reads the wheel's copy, with no checkout near
    assert {"tui/help/agent.md", "tui/help/commands.md"} <= names
    helped = subprocess.run([str(script), "help", "agent"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert helped.returncode == 0 and helped.stdout.startswith("# The token agent"), helped.stderr
