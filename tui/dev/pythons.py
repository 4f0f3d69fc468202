"""`make test`'s run on the oldest and newest supported Pythons, beside the main run.

Finds Python 3.10 and 3.13 (on PATH as `python3.10` / `python3.13`, else pyenv's
interpreters), gives each a virtual environment of its own with the project's wheel and the test
tools those tests need (as the test extra of pyproject.toml pins them) (kept in `.venv-3.10`, `.venv-3.13`; the dependencies are installed
again when pyproject.toml changes, the project every time), and runs the core and command-line
tests there. Says plainly which interpreters were found, which were not (skipped)
and what each run gave. `--prepare` only sets the environments up (`make test` does it while ruff
and mypy run); the next run takes them as they are, once. Exit status 1 when a run failed, 0 otherwise (a missing interpreter is
not a failure: it is said).

    python -m tui.dev.pythons [--list | --prepare | --all]
"""

from __future__ import annotations

import argparse
import glob
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # the main run's Python may be 3.10: tomli is in the test extra
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
VERSIONS = ("3.10", "3.13")  # the oldest and newest supported (pyproject.toml's classifiers)
# a representative part of the core and command-line tests, what a server without a desktop runs:
# the sign-in attempt and its protocol, credentials, keys, selection, tokens and single flight,
# config.toml round trips, the flows against the local authorization server, the command line's
# parsing and a handful of its commands end to end (about 40 seconds with one worker: the whole
# suite runs on the main Python beside it, and all of tests/core and tests/cli with `--all`)
SUITES = (
    "tests/core/signin",
    "tests/core/test_credentials.py",
    "tests/core/test_keys.py",
    "tests/core/test_digest.py",  # the interpreter's own SHA-256 is named per version (_sha256, _sha2)
    "tests/core/test_bounded.py",  # asyncio.wait_for loses a cancel on 3.10/3.11, not on 3.12+
    # ... and the sign-in that lost it: a signal and a poll's answer in one turn of the loop
    "tests/faults/test_interrupts.py::test_a_signal_that_comes_with_a_polls_answer_still_discards_the_sign_in",
    "tests/core/test_local_server_flows.py",
    "tests/core/test_provider_edit.py",
    "tests/core/test_selection.py",
    "tests/core/test_tokens.py",
    "tests/cli/test_options.py",
    # the command line end to end: a handful of its subprocess tests (each starts the console
    # script; all of test_cli.py on two more interpreters cost the main run half a minute)
    "tests/cli/test_cli.py::test_help",
    "tests/cli/test_cli.py::test_token_prints_only_the_token",
    "tests/cli/test_cli.py::test_token_refreshes_expired_and_writes_back",
    "tests/cli/test_cli.py::test_status_json_schema",
    "tests/cli/test_cli.py::test_login_no_tui_success_with_json",
    "tests/cli/test_cli.py::test_logout",
)
EVERYTHING = ("tests/core", "tests/cli")
# what those tests need beyond the product (versions from the test extra): not the linters, the
# type checker, the TLS and proxy tools of the doctor tests or the snapshot plugin, whose
# installs would cost more than the tests
TEST_TOOLS = ("pytest", "pytest-asyncio", "respx", "pytest-timeout", "hypothesis")
EVERYTHING_TOOLS = ("trustme", "proxy.py")  # for --all: the doctor tests' TLS server and proxy


@dataclass
class Result:
    version: str
    python: str | None  # None: not found
    ok: bool = True
    summary: str = ""
    seconds: float = 0.0

    def line(self) -> str:
        if self.python is None:
            return f"Python {self.version}: not found on PATH or under pyenv: skipped"
        verdict = "passed" if self.ok else "FAILED"
        return f"Python {self.version} ({self.python}): core and command-line tests {verdict}: {self.summary} ({self.seconds:.0f} s with its setup)"


def find(version: str) -> str | None:
    """`pythonX.Y` on PATH, else the newest pyenv interpreter of that version."""
    on_path = shutil.which(f"python{version}")
    if on_path and _runs(on_path, version):
        return on_path
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}")))
    for candidate in reversed(found):
        if _runs(candidate, version):
            return candidate
    return None


def _runs(python: str, version: str) -> bool:
    """The interpreter starts and is the version asked for (a pyenv shim may point elsewhere)."""
    try:
        out = subprocess.run(  # noqa: S603 - an interpreter found above, no shell
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and out.stdout.strip() == version


def build_wheel(log: list[str]) -> pathlib.Path | None:
    """The project's wheel, built once for every interpreter (pure Python), in a temporary
    directory: two builds at once in the source tree would race over its build directory."""
    out = pathlib.Path(tempfile.mkdtemp(prefix="assistant-auth-wheel-"))
    uv = installer()
    if uv is not None:
        command = [uv, "build", "--quiet", "--wheel", "--out-dir", str(out), str(ROOT)]
    else:
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(ROOT)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)  # noqa: S603 - no shell
    wheels = sorted(out.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        log.append(f"building the wheel failed:\n{done.stdout}{done.stderr}")
        return None
    return wheels[-1]


def installer() -> str | None:
    """uv, where `make` put it in the main environment (beside its Python), else None (pip)."""
    uv = pathlib.Path(sys.executable).parent / "uv"
    return str(uv) if os.access(uv, os.X_OK) else None


def test_requirements(names: tuple[str, ...]) -> list[str]:
    """The test extra's requirements of `names`, as pyproject.toml pins them."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    return [spec for spec in extra if re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0] in names]


def environment(
    version: str, python: str, wheel: pathlib.Path, tools: list[str], log: list[str]
) -> pathlib.Path | None:
    """`.venv-X.Y` with the project's wheel and the test tools (the dependencies are installed
    again only when pyproject.toml changed; the project itself every time)."""
    venv = ROOT / f".venv-{version}"
    stamp = venv / ".installed"
    bin_python = venv / "bin" / "python"
    pyproject = ROOT / "pyproject.toml"
    # the main environment's uv (else its pip) installs into it (no pip of its own to set up),
    # without compiling every file of every dependency ahead of time (Python compiles what the
    # tests import)
    uv = installer()
    if uv is not None:
        pip = [uv, "pip", "install", "--quiet", "--python", str(bin_python)]
    else:
        pip = [sys.executable, "-m", "pip", "--python", str(bin_python), "install", "--quiet", "--no-compile"]
    if stamp.exists() and bin_python.exists() and stamp.stat().st_mtime >= pyproject.stat().st_mtime:
        steps = [[*pip, "--no-deps", "--force-reinstall", str(wheel)], [*pip, *tools]]
    else:
        shutil.rmtree(venv, ignore_errors=True)
        steps = [[python, "-m", "venv", "--without-pip", str(venv)], [*pip, str(wheel), *tools]]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, cwd=ROOT)  # noqa: S603 - no shell
        if done.returncode != 0:
            log.append(f"`{' '.join(step[:5])} …` failed:\n{done.stdout}{done.stderr}")
            return None
    stamp.touch()
    return bin_python


def prepared_mark(version: str) -> pathlib.Path:
    """Left by `--prepare` once `.venv-X.Y` has this tree's wheel and the test tools; the next run
    takes it (and skips the setup) and removes it."""
    return ROOT / f".venv-{version}" / ".prepared"


def prepare(version: str, python: str, wheel: pathlib.Path) -> str | None:
    """`--prepare`: the environment only; what went wrong, or None."""
    log: list[str] = []
    prepared_mark(version).unlink(missing_ok=True)
    if environment(version, python, wheel, test_requirements(TEST_TOOLS), log) is None:
        return f"Python {version}: could not build its environment\n" + "\n".join(log)
    prepared_mark(version).touch()
    return None


def run_suites(version: str, python: str, wheel: pathlib.Path | None, suites: tuple[str, ...]) -> Result:
    """The suites on `python`, in its environment: the one `--prepare` left (`wheel` None), else
    one set up now."""
    result = Result(version, python)
    log: list[str] = []
    start = time.monotonic()
    tools = test_requirements(TEST_TOOLS + (EVERYTHING_TOOLS if suites == EVERYTHING else ()))
    env_python = ROOT / f".venv-{version}" / "bin" / "python" if wheel is None else None
    if wheel is not None:
        env_python = environment(version, python, wheel, tools, log)
    if env_python is None:
        result.ok, result.summary = False, "could not build its environment\n" + "\n".join(log)
        return result
    # the tests import the source tree (pytest puts the repository first on sys.path); the
    # commands they start are the installed console script: the same code
    # the hang guard (pyproject's 120 s per test) widened: this run shares two cores with the main run
    command = [str(env_python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "timeout=600", *suites]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)  # noqa: S603 - no shell
    result.seconds = time.monotonic() - start
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    result.ok = done.returncode == 0
    result.summary = lines[-1].strip("= ") if lines else f"pytest exited {done.returncode}"
    if not result.ok:
        failures = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
        result.summary += "\n" + "\n".join(failures[:30] or lines[-40:])
    return result


def low_io() -> None:
    """This process and its children get the disk after everything else of normal priority
    (best effort, its lowest level, through util-linux's `ionice` where it is installed). Not
    Linux's idle class: under a suite that writes all the time, idle is never served."""
    ionice = shutil.which("ionice")
    if ionice is not None:
        subprocess.run([ionice, "-c", "2", "-n", "7", "-p", str(os.getpid())], capture_output=True)  # noqa: S603 - no shell


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="only say which interpreters are found")
    parser.add_argument("--all", action="store_true", help="all of tests/core and tests/cli, not the usual part")
    parser.add_argument("--prepare", action="store_true", help="only set up the environments, for the next run")
    args = parser.parse_args(argv)
    found = {version: find(version) for version in VERSIONS}
    if args.list:
        for version, python in found.items():
            print(Result(version, python).line() if python is None else f"Python {version}: {python}")
        return 0
    if args.prepare:
        return prepare_all(found)
    # beside the main run at the same CPU priority: these tests mostly wait on servers and
    # subprocesses (14 s of CPU in 35 s each), and the CPU-heavy part, the setup, is done by
    # `--prepare` while ruff and mypy run. Niced, they starved beside eight busy workers and a CPU
    # hog: at 19 the setup ran only after the main run, at 10 a property test outran its 120 s
    low_io()  # the disk after everything else: an unprepared run installs thousands of files
    # an environment `--prepare` left is taken as it is (its mark is used up); any other is set up
    ready = {v for v, python in found.items() if python and not args.all and _take_mark(v)}
    log: list[str] = []
    wheel = build_wheel(log) if any(p and v not in ready for v, p in found.items()) else None
    if any(p and v not in ready for v, p in found.items()) and wheel is None:
        print("Other supported Pythons: " + "\n".join(log))
        return 1
    with ThreadPoolExecutor(max_workers=len(VERSIONS)) as pool:
        futures = [
            pool.submit(
                run_suites, version, python, None if version in ready else wheel, EVERYTHING if args.all else SUITES
            )
            if python
            else None
            for version, python in found.items()
        ]
        results = [
            future.result() if future is not None else Result(version, None)
            for version, future in zip(found, futures, strict=True)
        ]
    print("Other supported Pythons (beside the main run):")
    for result in results:
        print("  " + result.line())
    return 0 if all(result.ok for result in results) else 1


def _take_mark(version: str) -> bool:
    mark = prepared_mark(version)
    try:
        mark.unlink()
    except OSError:
        return False
    return True


def prepare_all(found: dict[str, str | None]) -> int:
    """`--prepare`: the wheel once, then each found interpreter's environment, side by side."""
    log: list[str] = []
    if not any(found.values()):
        return 0
    wheel = build_wheel(log)
    if wheel is None:
        print("Other supported Pythons: " + "\n".join(log))
        return 1
    with ThreadPoolExecutor(max_workers=len(VERSIONS)) as pool:
        problems = [
            p for p in pool.map(lambda vp: prepare(vp[0], vp[1], wheel), [(v, p) for v, p in found.items() if p]) if p
        ]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
