"""The reference pages (`docs/*.md` in the repository) as a person reads them in a terminal,
`assistant-auth help [TOPIC]`: a wheel and a pipx install ship them as `tui/help/*.md` (the
build copies them, `setup.py`); a checkout reads `docs/` itself. Topics are the pages' names
(`agent`, `commands`, `doctor`, ...). Pure lookups; the command prints."""

from __future__ import annotations

import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[2]  # tui/
SHIPPED = PACKAGE / "help"  # in a built package
CHECKOUT = PACKAGE.parent / "docs"  # in the repository


def where() -> pathlib.Path | None:
    """The directory the pages are read from: the shipped copy, else the checkout's docs/."""
    for place in (SHIPPED, CHECKOUT):
        if place.is_dir() and any(place.glob("*.md")):
            return place
    return None


def topics() -> dict[str, pathlib.Path]:
    """Each topic and its page, by name."""
    place = where()
    return {page.stem: page for page in sorted(place.glob("*.md"))} if place is not None else {}


def title(page: pathlib.Path) -> str:
    """A page's first heading, for the list of topics."""
    try:
        with open(page, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("# "):
                    return line[2:].strip()
    except OSError:
        pass
    return page.stem


def page_text(page: pathlib.Path) -> str:
    """A page for a terminal: as written (Markdown reads as text), its links to other pages named
    by topic (`assistant-auth help NAME`), since the reader has no files to follow."""
    text = page.read_text(encoding="utf-8")
    for other in topics():
        text = text.replace(f"]({other}.md)", f"] (assistant-auth help {other})")
        text = text.replace(f"](docs/{other}.md)", f"] (assistant-auth help {other})")
    return text
