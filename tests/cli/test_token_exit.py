"""`token` ends at once (`tui.cli.run`) only when nothing is left for the interpreter's exit: an
atexit function, another thread or a stream that cannot be flushed gets the interpreter's own
exit. Real processes started afresh: the exit is what is tested."""

import os
import subprocess
import sys
import time

from tests.conftest import write_creds

ENTRY = "import sys; sys.argv = ['assistant-auth', *sys.argv[1:]]; {before}\nfrom tui.cli import run\nrun()"


def entry(before: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", ENTRY.format(before=before), *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=60,
        **kwargs,
    )


def test_token_ends_with_its_code_and_everything_said(home, server):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    done = entry("", "token")
    assert done.returncode == 0 and done.stdout == server.issued[-1][0] + "\n" and done.stderr == ""
    (home / "credentials" / "assistant-code.json").unlink()
    missing = entry("", "token")
    assert missing.returncode == 1 and "assistant-auth login" in missing.stderr and missing.stdout == ""


def test_an_atexit_function_still_runs(home, server, tmp_path):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    mark = tmp_path / "ran"
    done = entry(f"import atexit; atexit.register(lambda: open({str(mark)!r}, 'w').write('ran'))", "token")
    assert done.returncode == 0 and mark.read_text() == "ran"


def test_a_thread_still_running_is_waited_for(home, server, tmp_path):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    mark = tmp_path / "joined"
    late = f"import threading, time; threading.Thread(target=lambda: (time.sleep(0.5), open({str(mark)!r}, 'w').write('done'))).start()"
    done = entry(late, "token")
    assert done.returncode == 0 and mark.read_text() == "done"


def test_a_reader_that_went_away_is_reported_as_before(home, server):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-c", ENTRY.format(before=""), "token"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
            timeout=60,
        )
    finally:
        os.close(write)
    assert done.returncode == 1 and "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
