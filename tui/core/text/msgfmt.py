"""gettext's `.po` → `.mo`, for the project's build and for a checkout that was never built.

A `.po` file is read entry by entry (`msgid`, `msgid_plural`, `msgstr`, `msgstr[n]`, strings
continued on the next lines, C escapes); fuzzy and untranslated entries are left out, as
`msgfmt` leaves them out. The `.mo` is the GNU format `gettext.GNUTranslations` reads.
"""

from __future__ import annotations

import ast
import struct
from dataclasses import dataclass, field


@dataclass
class Entry:
    msgid: str = ""
    plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False
    context: str | None = None

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and all(self.msgstr.values()) and not self.fuzzy


def _string(text: str, where: int) -> str:
    text = text.strip()
    if not (len(text) >= 2 and text[0] == text[-1] == '"'):
        raise ValueError(f"line {where}: expected a quoted string, found {text[:40]!r}")
    value = ast.literal_eval(text)  # a C-escaped string is a Python string literal here
    if not isinstance(value, str):  # pragma: no cover - a quoted literal is a str
        raise ValueError(f"line {where}: not a string")
    return value


def parse_po(text: str) -> list[Entry]:
    """Every entry of a `.po` file, the header (msgid "") first when there is one."""
    entries: list[Entry] = []
    entry = Entry()
    target: tuple[str, int] | None = None  # the field the next continuation line extends
    started = False

    def finish() -> None:
        nonlocal entry, started
        if started:
            entries.append(entry)
        entry, started = Entry(), False

    for number, raw in enumerate(text.split("\n"), 1):  # not splitlines(): U+0085 and the like are text here
        line = raw.strip()
        if not line:
            finish()
            target = None
            continue
        if line.startswith("#,"):
            if started and target is not None and target[0] == "msgstr":
                finish()
            entry.fuzzy = entry.fuzzy or "fuzzy" in line
            continue
        if line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if line.startswith('"'):
            if target is None:
                raise ValueError(f"line {number}: a continuation with nothing to continue")
            name, index = target
            value = _string(line, number)
            if name == "msgid":
                entry.msgid += value
            elif name == "msgid_plural":
                entry.plural = (entry.plural or "") + value
            elif name == "msgctxt":
                entry.context = (entry.context or "") + value
            else:
                entry.msgstr[index] += value
            continue
        if keyword in ("msgctxt", "msgid") and started and target is not None and target[0] == "msgstr":
            finish()
        started = True
        if keyword == "msgctxt":
            entry.context, target = _string(rest, number), ("msgctxt", 0)
        elif keyword == "msgid":
            entry.msgid, target = _string(rest, number), ("msgid", 0)
        elif keyword == "msgid_plural":
            entry.plural, target = _string(rest, number), ("msgid_plural", 0)
        elif keyword == "msgstr":
            entry.msgstr[0], target = _string(rest, number), ("msgstr", 0)
        elif keyword.startswith("msgstr[") and keyword.endswith("]"):
            index = int(keyword[7:-1])
            entry.msgstr[index], target = _string(rest, number), ("msgstr", index)
        else:
            raise ValueError(f"line {number}: unknown keyword {keyword[:20]!r}")
    finish()
    return entries


def compile_po(text: str) -> bytes:
    """The `.mo` bytes of a `.po` file's translated entries (and its header)."""
    pairs: dict[bytes, bytes] = {}
    for entry in parse_po(text):
        if not entry.translated and entry.msgid:
            continue
        key = entry.msgid if entry.plural is None else entry.msgid + "\0" + entry.plural
        if entry.context is not None:
            key = entry.context + "\x04" + key
        value = "\0".join(entry.msgstr[i] for i in sorted(entry.msgstr))
        pairs[key.encode("utf-8")] = value.encode("utf-8")
    keys = sorted(pairs)
    header_size = 7 * 4
    table = len(keys) * 8
    ids_start = header_size + 2 * table
    ids = b""
    strs = b""
    id_offsets: list[tuple[int, int]] = []
    for msgid in keys:
        id_offsets.append((len(msgid), len(ids)))
        ids += msgid + b"\0"
    strs_start = ids_start + len(ids)
    str_offsets: list[tuple[int, int]] = []
    for msgid in keys:
        translation = pairs[msgid]
        str_offsets.append((len(translation), len(strs)))
        strs += translation + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, len(keys), header_size, header_size + table, 0, 0)
    out += b"".join(struct.pack("<2I", length, ids_start + offset) for length, offset in id_offsets)
    out += b"".join(struct.pack("<2I", length, strs_start + offset) for length, offset in str_offsets)
    return out + ids + strs
