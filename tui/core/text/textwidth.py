"""How many terminal cells a line takes: a CJK character (wide or full-width) two, a combining
mark none, anything else one. For lines a plain-text face fits to the terminal's width (the
wizard measures with Textual's own rules)."""

from __future__ import annotations

import unicodedata


def char_cells(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cells(text: str) -> int:
    """The width of `text` on a terminal, in cells."""
    return sum(char_cells(char) for char in text)


def cut(text: str, width: int) -> str:
    """The longest start of `text` that fits in `width` cells (a wide character is never halved)."""
    used = 0
    for index, char in enumerate(text):
        used += char_cells(char)
        if used > width:
            return text[:index]
    return text


OPENING = "（「『《〈【(["  # never at the end of a line: glued to what follows
CLOSING = "，。、；：！？）」』》〉】,.;:!?)]"  # never at the start of a line: glued to what precedes


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _atoms(text: str) -> list[tuple[str, bool]]:
    """(piece, space before it): words of narrow characters, and each wide character alone, with
    the glue rules applied (a number and the wide unit after it, an opening bracket and what
    follows, closing punctuation and what precedes). A command in backticks is one piece, and in
    text with wide characters so is a run of narrow words between them (`assistant-auth login
    --region global` in a Chinese sentence): a command in a sentence is never broken."""
    atoms: list[tuple[str, bool]] = []
    spaced, word = False, ""
    text += " "
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char == "`" and "`" in text[index:]:  # a command: whole, its spaces and all
            end = text.index("`", index) + 1
            word += char + text[index:end]
            index = end
            continue
        if char.isspace() or _wide(char):
            if word:
                atoms.append((word, spaced))
                spaced, word = False, ""
            if char.isspace():
                spaced = bool(atoms)
            else:
                atoms.append((char, spaced))
                spaced = False
        else:
            word += char
    if any(_wide(piece[0]) for piece, _space in atoms):
        atoms = _narrow_runs(atoms)
    return _glue(atoms)


def _glue(atoms: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """The glue rules: a number and the wide unit after it, an opening bracket and what follows,
    closing punctuation and what precedes, each one piece."""
    glued: list[tuple[str, bool]] = []
    for piece, space in atoms:
        previous = glued[-1][0] if glued else ""
        sticks = (
            piece[0] in CLOSING
            or (previous and previous[-1] in OPENING)  # spaced or not: never at the end of a line
            or (previous and previous[-1].isdigit() and _wide(piece[0]))
        )
        if glued and sticks:
            glued[-1] = (previous + (" " if space else "") + piece, glued[-1][1])
        else:
            glued.append((piece, space))
    return glued


def _narrow_runs(atoms: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """Narrow words next to each other, in text with wide characters, as one piece (a command or
    a name among Chinese words); `wrap` splits one at its spaces only when it is wider than a line."""
    runs: list[tuple[str, bool]] = []
    for piece, space in atoms:
        previous = runs[-1][0] if runs else ""
        if space and previous and not _wide(previous[-1]) and not _wide(piece[0]):
            runs[-1] = (previous + " " + piece, runs[-1][1])
        else:
            runs.append((piece, space))
    return runs


def _too_wide(atoms: list[tuple[str, bool]], width: int) -> list[tuple[str, bool]]:
    """A piece wider than a line, split at its spaces (its words), before anything is cut."""
    split: list[tuple[str, bool]] = []
    for piece, space in atoms:
        if cells(piece) > width and " " in piece:
            words = _words(piece)
            split += _glue([(words[0], space)] + [(word, True) for word in words[1:]])
        else:
            split.append((piece, space))
    return split


def _words(piece: str) -> list[str]:
    """A piece's words: split at its spaces, a command in backticks kept whole."""
    words, word, quoted = [], "", False
    for char in piece:
        if char == "`":
            quoted = not quoted
        if char == " " and not quoted:
            if word:
                words.append(word)
            word = ""
        else:
            word += char
    return [*words, word] if word else words


def wrap(text: str, width: int) -> list[str]:
    """`text` (whitespace collapsed) in lines of at most `width` cells: breaks at spaces, and
    between wide characters (Chinese has no spaces), never inside a number and its unit, after an
    opening bracket or before closing punctuation. A single piece wider than the line is cut."""
    width = max(width, 2)
    lines: list[str] = []
    line = ""
    for piece, space in _too_wide(_atoms(text), width):
        joined = line + (" " if space and line else "") + piece
        if line and cells(joined) > width:
            lines.append(line)
            line = piece
        else:
            line = joined
        while cells(line) > width:  # one piece wider than the whole line: cut, never overflow
            head = cut(line, width)
            lines.append(head)
            line = line[len(head) :]
    if line:
        lines.append(line)
    return _no_widow(lines, width)


WIDOW = 4  # cells: a last line this short ("它。") takes characters from the line above


def _no_widow(lines: list[str], width: int) -> list[str]:
    """Chinese never ends a paragraph on a lone character and its stop ("它。"): the last wide
    characters of the line above go down with it (two at most, never emptying that line)."""
    if len(lines) < 2 or cells(lines[-1]) > WIDOW or not _wide(lines[-1][0]):
        return lines
    above, last = lines[-2], lines[-1]
    for _moved in range(2):
        if len(above) < 2 or not _wide(above[-1]) or above[-1] in OPENING or cells(last) + 2 > width:
            break
        above, last = above[:-1].rstrip(), above[-1] + last
    broken = last[0] in CLOSING or not above or above[-1] in OPENING or above[-1].isspace() or above[-1].isdigit()
    if broken:  # a stop starting a line, a bracket or a number left at an end: as it was
        return lines
    return [*lines[:-2], above, last]


def fit(text: str, columns: int) -> str:
    """Text laid out by hand (a `--help`), fitted to `columns` cells: a paragraph (lines at the
    margin) with a line too wide is flowed again as one; any other line too wide is wrapped under
    itself, an option row (`  --flag ARG   what it does`) under its description column."""
    blocks = text.split("\n\n")
    return "\n\n".join(_fit_block(block, columns) for block in blocks)


def _join(lines: list[str]) -> str:
    """Lines of one paragraph as one: a space between them, none between two wide characters."""
    joined = ""
    for line in (line.strip() for line in lines):
        if joined and line:
            wide_stop = _wide(joined[-1]) and unicodedata.category(joined[-1]).startswith("P")  # "；" needs no space
            joined += "" if _wide(joined[-1]) and (_wide(line[0]) or wide_stop) else " "
        joined += line
    return joined


def _fit_block(block: str, columns: int) -> str:
    body = block.rstrip("\n")
    tail = block[len(body) :]  # the text's last newline is kept, never a line of the paragraph
    lines = body.split("\n")
    if all(cells(line) <= columns for line in lines):
        return block
    at_margin = all(line and not line[0].isspace() for line in lines)
    if at_margin and not lines[0].lower().startswith(("usage", "用法")):
        return "\n".join(wrap(_join(lines), columns)) + tail
    return "\n".join(_fit_line(line, columns) for line in _rows(lines)) + tail


def _description_column(line: str) -> int | None:
    stripped = line.lstrip(" ")
    indent = len(line) - len(stripped)
    gap = stripped.find("  ") if stripped.startswith("-") else -1
    if gap <= 0:
        return None
    rest = stripped[gap:].lstrip(" ")
    return indent + len(stripped) - len(rest) if rest else None


def _rows(lines: list[str]) -> list[str]:
    """An option row and the lines that continue its description (indented to its column), as
    one line each: they are wrapped again together."""
    rows: list[str] = []
    column: int | None = None
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if rows and column is not None and line.strip() and indent == column:
            rows[-1] = rows[-1][:column] + _join([rows[-1][column:], line])
            continue
        rows.append(line)
        column = _description_column(line)
    return rows


def _fit_line(line: str, columns: int) -> str:
    if cells(line) <= columns:
        return line
    stripped = line.lstrip(" ")
    indent = len(line) - len(stripped)
    head, column = " " * indent, indent
    gap = stripped.find("  ") if stripped.startswith("-") or indent else -1
    if gap > 0:  # an option row: the description wraps under its own column
        rest = stripped[gap:].lstrip(" ")
        option_column = indent + len(stripped) - len(rest)
        if option_column < columns // 2:
            head, column, stripped = line[:option_column], option_column, rest
    wrapped = wrap(stripped, max(columns - column, 10))
    return "\n".join([head + wrapped[0], *(" " * column + more for more in wrapped[1:])])
