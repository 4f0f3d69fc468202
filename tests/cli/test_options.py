"""The hand parser of `token` and `exec` over any text: a value or a usage message, never an
exception (a 5,000-digit --min-ttl once reached "unexpected error")."""

from __future__ import annotations

from hypothesis import given, strategies as st

from tests.cli.test_cli import run
from tui.cli.options import MAX_MIN_TTL, min_ttl_value, parse_flags

FLAGS = st.sampled_from(
    [
        "--slot",
        "--region",
        "--provider",
        "--base-url",
        "--key",
        "--oauth-host",
        "--min-ttl",
        "--json",
        "--",
        "--min-ttl=",
        "-x",
    ]
)


@given(st.text(max_size=6000) | st.from_regex(r"[0-9]{1,6000}", fullmatch=True))
def test_min_ttl_is_a_number_in_range_or_a_short_usage_message(text):
    value, problem = min_ttl_value(text)
    assert (value is None) != (problem is None)
    if value is not None:
        assert 0 <= value <= MAX_MIN_TTL and text.isdigit()
    else:
        assert problem.startswith("--min-ttl takes a whole number of seconds") and len(problem) < 200


@given(st.lists(FLAGS | st.text(max_size=40), max_size=8))
def test_any_arguments_parse_or_say_what_is_wrong(args):
    values, extra, rest, problem = parse_flags(args, ("--json",), ("--min-ttl",), "token")
    assert problem is None or isinstance(problem, str)
    if "--min-ttl" in extra and isinstance(extra["--min-ttl"], str):
        min_ttl_value(extra["--min-ttl"])


def test_a_huge_min_ttl_is_a_usage_error(home):
    result = run("token", "--min-ttl", "9" * 5000)
    assert result.returncode == 2 and "unexpected error" not in result.stderr
    assert "--min-ttl takes a whole number of seconds" in result.stderr and len(result.stderr) < 300
