"""The message catalog's upkeep: which strings the code marks, and whether each language has them.

    python -m tui.dev.messages            # say what is missing or stale in each catalog
    python -m tui.dev.messages --update   # add new strings (empty) to each .po, keep translations

Marked strings are the literal first arguments of `_()`, `N_()` and `ngettext()` (singular and
plural) anywhere under `tui/`; a catalog is `tui/locale/<lang>/LC_MESSAGES/assistant-auth.po`.
"""

from __future__ import annotations

import argparse
import ast
import json
import pathlib
import re
import sys
from dataclasses import dataclass

from tui.core.text.i18n import DOMAIN
from tui.core.text.msgfmt import Entry, parse_po

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tui"
LOCALE = PACKAGE / "locale"
MARKERS = {"_": 1, "N_": 1, "ngettext": 2}  # name -> how many leading literal arguments are messages
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:[:!][^{}]*)?\}|%(?:\([a-z_]+\))?[sdr]")


@dataclass(frozen=True)
class Marked:
    msgid: str
    plural: str | None
    where: str  # "tui/app/screens/home.py:42"


def marked_strings(package: pathlib.Path = PACKAGE) -> list[Marked]:
    """Every marked string, in file order (a string marked twice is listed twice)."""
    found: list[Marked] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS):
                continue
            texts = [
                a.value
                for a in node.args[: MARKERS[node.func.id]]
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if len(texts) != MARKERS[node.func.id]:
                continue  # `_(binding.description)`: a string marked at its home with N_, shown here
            where = f"{path.relative_to(package.parent).as_posix()}:{node.lineno}"
            found.append(Marked(texts[0], texts[1] if len(texts) > 1 else None, where))
    return found


def placeholders(text: str) -> list[str]:
    """`{region}`, `{n}`, `%s` of a message, sorted (their order may change in a translation)."""
    return sorted(PLACEHOLDER.findall(text))


def catalogs() -> dict[str, pathlib.Path]:
    return {path.parts[-3]: path for path in sorted(LOCALE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))}


def problems(po: pathlib.Path, marked: list[Marked]) -> list[str]:
    """Missing, untranslated, fuzzy, stale entries and placeholder mismatches of one catalog."""
    entries = {e.msgid: e for e in parse_po(po.read_text(encoding="utf-8")) if e.msgid}
    wanted = {m.msgid: m for m in marked}
    found = []
    for msgid, mark in wanted.items():
        entry = entries.get(msgid)
        if entry is None:
            found.append(f"missing: {msgid!r} ({mark.where})")
        elif not entry.translated:
            found.append(f"untranslated or fuzzy: {msgid!r} ({mark.where})")
        else:
            for index, text in entry.msgstr.items():
                source = mark.plural if index > 0 and mark.plural else msgid
                if placeholders(text) != placeholders(source):
                    found.append(f"placeholders differ: {msgid!r}: {placeholders(source)} vs {placeholders(text)}")
    found += [f"stale (no longer marked): {msgid!r}" for msgid in entries if msgid not in wanted]
    return found


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def render(entries: list[Entry], header: str, marked: list[Marked]) -> str:
    """A .po file: the header, then one entry per marked string in first-use order."""
    where: dict[str, list[str]] = {}
    for mark in marked:
        where.setdefault(mark.msgid, []).append(mark.where)
    lines = [header.rstrip("\n"), ""]
    for entry in entries:
        lines += [f"#: {' '.join(where.get(entry.msgid, []))}"] if entry.msgid in where else []
        lines.append(f"msgid {_quote(entry.msgid)}")
        if entry.plural is not None:
            lines.append(f"msgid_plural {_quote(entry.plural)}")
            lines += [f"msgstr[{i}] {_quote(entry.msgstr.get(i, ''))}" for i in sorted(entry.msgstr) or [0]]
        else:
            lines.append(f"msgstr {_quote(entry.msgstr.get(0, ''))}")
        lines.append("")
    return "\n".join(lines)


def update(po: pathlib.Path, marked: list[Marked]) -> None:
    text = po.read_text(encoding="utf-8")
    header = text.split("\n\n", 1)[0] + "\n"
    known = {e.msgid: e for e in parse_po(text) if e.msgid}
    entries: list[Entry] = []
    for mark in marked:
        if mark.msgid in {e.msgid for e in entries}:
            continue
        entries.append(known.get(mark.msgid) or Entry(mark.msgid, mark.plural, {0: ""}))
    po.write_text(render(entries, header, marked), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="add new strings to each catalog")
    args = parser.parse_args(argv)
    marked = marked_strings()
    print(f"{len({m.msgid for m in marked})} strings marked")
    failed = False
    for lang, po in catalogs().items():
        if args.update:
            update(po, marked)
        found = problems(po, marked)
        failed = failed or bool(found)
        print(f"{lang}: " + ("complete" if not found else f"{len(found)} problems"))
        for line in found:
            print("  " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
