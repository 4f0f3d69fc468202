"""The Chinese catalog uses one word for each idea: the glossary of docs/language.md, read here,
and no translation uses a word of its `never` column."""

from __future__ import annotations

import pathlib
import re

from tui.core.text.msgfmt import parse_po

ROOT = pathlib.Path(__file__).resolve().parents[2]
CATALOG = ROOT / "tui" / "locale" / "zh_CN" / "LC_MESSAGES" / "assistant-auth.po"


def glossary() -> list[tuple[str, str, list[str]]]:
    text = (ROOT / "docs" / "language.md").read_text()
    section = text.split("### Glossary (Simplified Chinese)", 1)[1].split("\n### ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("idea", "") or set(cells[0]) <= {"-"}:
            continue
        rows.append((cells[0], cells[1], [word.strip() for word in cells[2].split(",") if word.strip()]))
    return rows


def test_the_glossary_is_read():
    rows = glossary()
    assert len(rows) >= 15
    assert ("account", "账号", ["账户"]) in rows


def test_no_translation_uses_a_word_the_glossary_forbids():
    entries = [e for e in parse_po(CATALOG.read_text(encoding="utf-8")) if e.msgid]
    found = []
    for idea, word, never in glossary():
        for entry in entries:
            for translation in entry.msgstr.values():
                for bad in never:
                    if bad in translation:
                        found.append(f"{idea}: {bad!r} instead of {word!r} in {translation[:60]!r}")
    assert found == []


def test_the_chosen_words_are_used():
    text = " ".join(t for e in parse_po(CATALOG.read_text(encoding="utf-8")) if e.msgid for t in e.msgstr.values())
    for _idea, word, _never in glossary():
        for choice in re.split(r"[;/]", word):
            choice = choice.strip().replace("…", "")
            if choice and " " not in choice:
                assert choice in text, choice
