"""The README and docs/ stand alone: every relative link resolves inside the repository (a
heading it names exists), none leaves it, every docs page is reachable from the README, and the
README stays a five-minute read."""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def links(page: pathlib.Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text()))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: pathlib.Path) -> set[str]:
    return {slug(m) for m in re.findall(r"^#+ (.+)$", FENCE.sub("", page.read_text()), re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves_inside_the_repository(page):
    for target in links(page):
        assert not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I), f"{page.name}: {target} leaves the repository"
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.is_relative_to(ROOT), f"{page.name}: {target} points outside the repository"
        assert resolved.exists(), f"{page.name}: {target} does not exist"
        if anchor:
            assert anchor in anchors(resolved), f"{page.name}: no heading #{anchor} in {resolved.name}"


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(ROOT / "README.md")}
    assert [p.name for p in PAGES[1:] if p.resolve() not in linked] == []


def test_the_readme_is_a_five_minute_read():
    assert len((ROOT / "README.md").read_text().split()) <= 1500


def test_the_checker_sees_a_bad_link(tmp_path):
    page = tmp_path / "x.md"
    page.write_text("[a](https://example.com) [b](../../etc/passwd) ![c](pic.svg)\n```\n[d](ignored)\n```\n")
    assert links(page) == ["https://example.com", "../../etc/passwd", "pic.svg"]
    assert slug("Tokens for other programs") == "tokens-for-other-programs"
