"""Shared fixtures: every test runs with a temporary ASSISTANT_CODE_HOME and HOME."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import subprocess

import pytest

from tui.demo.env import server_env
from tui.demo.server import AuthServer
from tui.dev.scenes import HOST_VARS  # noqa: E402 - every setting a test pins

# making a file of another user (os.chown) needs root: such a test skips for a developer who is not
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="making a file of another user needs root")

# respx-mocked tests use these fixed https hosts
CN_HOST = "https://auth.cn.test"
GLOBAL_HOST = "https://auth.global.test"
CN_BASE = "https://api.cn.test/coding/v1"
GLOBAL_BASE = "https://api.global.test/coding/v1"


@pytest.fixture(autouse=True)
def home(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """A private config dir; the real ~/.assistant-code is never touched."""
    config = tmp_path / "assistant-home"
    monkeypatch.setenv("ASSISTANT_CODE_HOME", str(config))
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    for name in HOST_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", CN_HOST)
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_GLOBAL", GLOBAL_HOST)
    monkeypatch.setenv("ASSISTANT_BASE_URL_CN", CN_BASE)
    monkeypatch.setenv("ASSISTANT_BASE_URL_GLOBAL", GLOBAL_BASE)
    monkeypatch.setenv("ASSISTANT_CLIENT_ID", "test-client")
    monkeypatch.setenv("ASSISTANT_LANG", "en")  # whatever the machine's locale; test_i18n chooses otherwise
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    monkeypatch.delenv("SSH_TTY", raising=False)
    return config


@pytest.fixture(autouse=True)
def no_shared_agent_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test's agent binds the person's stable socket (`$XDG_RUNTIME_DIR/assistant-auth/`):
    agents of parallel tests would find each other running. Tests of that place set it themselves."""
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)


@pytest.fixture(autouse=True)
def secrets_of_this_test_only():
    """Each test starts with no registered secret and leaves none behind. The registry is the
    process's (a token handled once is redacted everywhere after), so a worker's earlier test could
    redact a later one's text: a property test drew the string "error_description" (hypothesis
    draws the literals of the code under test) as a token, and `test_poll_other_error_code`,
    run after it on the same worker, found its message's field name redacted."""
    from tui.core.text import redact

    before = set(redact._secrets)
    redact._secrets.clear()
    try:
        yield
    finally:
        redact._secrets.clear()
        redact._secrets.update(before)


def point_env_at(server: AuthServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """cn -> http://127.0.0.1:P, global -> http://localhost:P: one server, two distinct hosts."""
    for name, value in server_env(server.url).items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    """The project's local authorization server on 127.0.0.1, with the env pointed at it."""
    srv = AuthServer(interval=1, auto_approve=None, client_id="test-client").start()
    point_env_at(srv, monkeypatch)
    try:
        yield srv
    finally:
        srv.stop()


def write_creds(home: pathlib.Path, data: object, name: str = "assistant-code") -> pathlib.Path:
    path = home / "credentials" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(json.dumps(data, indent=2) if not isinstance(data, str) else data)
    os.chmod(path, 0o600)
    return path


def read_json(path: pathlib.Path) -> object:
    return json.loads(path.read_text())


@pytest.fixture
def quick_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wizard polls again by itself once after server trouble: after 0.1 s instead of 3 s."""
    from tui.core.signin.attempt import SignIn

    monkeypatch.setattr(SignIn, "BACK_OFF", 0.1)


def default_signals() -> None:
    """`preexec_fn` of a child a test sends signals to: their default dispositions. A test run
    started as a background job (or under nohup) hands its children SIGINT or SIGHUP ignored,
    and a program rightly leaves an ignored signal ignored."""
    import signal

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    # and none blocked: a mask is inherited through fork and exec, and a harness may start the
    # run with one
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def terminate(process, timeout: float = 30.0) -> None:
    """SIGTERM, a bounded wait for the exit, then SIGKILL (which cannot be caught: no bound)."""
    import subprocess

    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# Property tests draw the same examples on every run (a failing example found while developing is
# kept with @example): a red CI never comes from a new random draw.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

# No per-example deadline: a timing limit is a clock standing in for an event, and a loaded machine
# (the suite, the 3.10 and 3.13 runs and a CPU hog on two cores) made one example of a pure
# function exceed hypothesis's 200 ms default once.
_hypothesis_settings.register_profile("deterministic", derandomize=True, print_blob=True, deadline=None)
_hypothesis_settings.load_profile("deterministic")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-weights",
        metavar="PATH",
        default=None,
        help="write each test file's seconds in this run to PATH (see tests/scheduling.py)",
    )
    parser.addoption(
        "--record-cpu",
        metavar="PATH",
        default=None,
        help="write each test file's CPU-seconds (its process and the children it waited for) to PATH",
    )


def pytest_configure(config: pytest.Config) -> None:
    from tests.frozen_heap import FrozenHeap
    from tests.scheduling import CpuMeter, WeightRecorder
    from tests.shared_css import share_parsed_css

    share_parsed_css()
    config.pluginmanager.register(FrozenHeap(), "frozen-heap")

    path, cpu = config.getoption("--record-weights"), config.getoption("--record-cpu")
    if cpu and (hasattr(config, "workerinput") or not config.getoption("numprocesses", None)):
        config.pluginmanager.register(CpuMeter(), "cpu-meter")  # where the tests run
    if (path or cpu) and not hasattr(config, "workerinput"):  # xdist's controller, or a run without workers
        recorder = WeightRecorder(pathlib.Path(path) if path else None, pathlib.Path(cpu) if cpu else None)
        config.pluginmanager.register(recorder, "weight-recorder")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    from tests.scheduling import longest_first, weights

    longest_first(items, weights())


@contextlib.contextmanager
def tmpfs(where: pathlib.Path, size: str):
    """A tmpfs of `size` mounted at `where` (made), private (0700), unmounted after (root only:
    the test is skipped where mounting is not allowed)."""
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tiny filesystem here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)
