"""No terminal encoding turns a command into "unexpected error" (issue #37.4): with an output
encoding that cannot carry our text, output degrades (ASCII stand-ins, English where Chinese cannot
be written) and every command keeps the exit code it has with UTF-8; the wizard says in one line
why it cannot start."""

from __future__ import annotations

import codecs
import io
import itertools
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from tests.cli.test_cli import SCRIPT, valid
from tests.conftest import write_creds
from tui.cli import main, streams

COMMANDS = ["login", "status", "token", "exec", "refresh", "logout", "switch", "doctor", "inspect", "config", "demo"]
SCENES = [
    ("status",),
    ("status", "--json"),
    ("doctor", "--offline"),
    ("doctor", "--offline", "--report"),
    ("--help",),
    *[(command, "--help") for command in [*COMMANDS, "completion"]],
    ("token",),
    ("token", "--json"),
    ("switch", "--region", "global"),
    ("nosuch",),
    ("exec", "--", "true"),
]


def run(args: tuple[str, ...], encoding: str, lang: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "ASSISTANT_LANG": lang}
    return subprocess.run([SCRIPT, *args], capture_output=True, env=env, timeout=60)


@pytest.fixture
def signed_in(home, server):
    write_creds(home, valid(server))
    return home


def run_here(args: tuple[str, ...], encoding: str, lang: str) -> tuple[int, bytes, bytes]:
    """`main` in this process, its stdout and stderr streams of `encoding` as a terminal's would
    be (strict on stdout, backslashreplace on stderr, as Python sets them up)."""
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding=encoding, errors="strict", newline="\n", write_through=True)
    stderr = io.TextIOWrapper(err, encoding=encoding, errors="backslashreplace", newline="\n", write_through=True)
    with pytest.MonkeyPatch.context() as patch:  # its own: undoing it leaves the test's home as it is
        patch.setenv("ASSISTANT_LANG", lang)
        patch.setattr(sys, "stdout", stdout)
        patch.setattr(sys, "stderr", stderr)
        code = main(list(args))
        stdout.flush()
        stderr.flush()
    return code, out.getvalue(), err.getvalue()


IN_PROCESS = [args for args in SCENES if args[:1] != ("exec",)]  # exec would become its program


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_every_command_keeps_its_exit_code_and_writes_what_the_stream_carries(signed_in, lang, monkeypatch):
    for args, encoding in itertools.product(IN_PROCESS, ["ascii", "latin-1"]):
        utf8 = run_here(args, "utf-8", lang)
        code, out, err = run_here(args, encoding, lang)
        said = out + err
        assert code == utf8[0], (args, encoding, err)
        said.decode(encoding)  # only what the stream can carry…
        text = (err if {"--json", "--report"} & set(args) else said).decode("latin-1")  # JSON escapes
        assert "unexpected error" not in text and "\\u" not in text and "\\x" not in text, (args, text)
        if utf8[1] + utf8[2]:  # …and something is said wherever UTF-8 says something
            assert said.strip(), args


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_real_streams_of_a_process(signed_in, lang):
    """The same through PYTHONIOENCODING in real processes, for a few commands (exec included)."""
    for args in [
        ("status",),
        ("doctor", "--offline"),
        ("--help",),
        ("login", "--help"),
        ("exec", "--", "true"),
        ("token",),
    ]:
        utf8 = run(args, "utf-8", lang)
        narrow = run(args, "ascii", lang)
        assert narrow.returncode == utf8.returncode, (args, narrow.stderr)
        (narrow.stdout + narrow.stderr).decode("ascii")
        assert b"unexpected error" not in narrow.stderr and b"\\u" not in narrow.stdout + narrow.stderr


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_where_chinese_cannot_be_written_english_is(signed_in, encoding, monkeypatch):
    for args in [("status",), ("doctor", "--offline"), ("--help",), ("login", "--help"), ("nosuch",)]:
        chinese = run_here(args, encoding, "zh-CN")
        english = run_here(args, encoding, "en")
        assert chinese == english, args


def test_the_stand_ins_are_ascii_and_the_doctor_marks_read_as_marks(signed_in):
    done = run(("doctor", "--offline"), "ascii", "en")
    lines = done.stdout.decode("ascii").splitlines()
    assert any(line.startswith("+ ok") for line in lines) and "?" not in done.stdout.decode()
    assert all(stand_in.isascii() for stand_in in streams.STAND_INS.values())


def test_utf8_is_left_as_it_is(signed_in):
    done = run(("doctor", "--offline"), "utf-8", "en")
    assert "✔ ok" in done.stdout.decode("utf-8")


def test_the_wizard_says_in_one_line_why_it_cannot_start(home):
    done = run((), "ascii", "zh-CN")
    assert done.returncode == 2
    lines = done.stderr.decode("ascii").splitlines()
    assert len(lines) == 1 and "cannot draw the wizard" in lines[0] and "(ascii)" in lines[0]
    assert done.stdout == b""
    assert run(("login",), "ascii", "en").returncode == 2


@settings(max_examples=200, deadline=None)
@given(text=st.text(), encoding=st.sampled_from(["ascii", "latin-1", "cp1252", "iso8859-5"]))
def test_any_text_on_any_narrow_stream_is_written(text, encoding):
    """The handler behind every stream: whatever is written comes out, never an error."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding, errors="strict", newline="")
    codecs.register_error(streams.HANDLER, streams._stand_in)
    stream.reconfigure(errors=streams.HANDLER)
    stream.write(text)
    stream.flush()
    written = raw.getvalue().decode(encoding)
    assert len(written) >= len(text)  # every character is written, as itself or as its stand-in
    for ch in text:
        if ch in streams.STAND_INS and not streams.carries(stream, ch):
            assert streams.STAND_INS[ch] in written
