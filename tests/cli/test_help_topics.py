"""`assistant-auth help [TOPIC]`: the reference pages in the terminal, and no message of the
program points at a file a pipx install does not have (`docs/…`)."""

from __future__ import annotations

import pathlib

from tests.commands import run_command
from tui.core.text.helpdocs import page_text, topics
from tui.dev.messages import marked_strings

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_help_lists_every_page_of_docs_as_a_topic():
    done = run_command(["help"])
    assert done.returncode == 0
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"  {page.stem} " in done.stdout
    assert "The token agent" in done.stdout


def test_help_topic_prints_the_page_and_names_other_pages_by_topic():
    done = run_command(["help", "agent"])
    assert done.returncode == 0 and done.stdout.startswith("# The token agent")
    assert "Who may ask what" in done.stdout
    for name in topics():
        assert f"]({name}.md)" not in page_text(topics()[name])  # a link is a topic to ask for, not a file


def test_an_unknown_topic_says_the_topics():
    done = run_command(["help", "nope"])
    assert done.returncode == 2 and "no help topic nope" in done.stderr and "agent" in done.stderr


def test_no_message_points_at_a_file_of_the_repository():
    pointing = [m for m in marked_strings() if "docs/" in m.msgid or ".md" in m.msgid]
    assert pointing == []
