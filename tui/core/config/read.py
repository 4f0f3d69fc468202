"""config.toml is read here, and only here: bytes through the file policy (regular file, at most
1 MiB), decoded as UTF-8 (a leading byte-order mark accepted and kept by writers), then parsed
three ways: `scan_managed_provider` (the `token` path: plain string work, no parser import),
`parse_config_readonly` (tomllib, for listings and selection) and `parse_config` (a tomlkit
document, for edits that keep every comment and byte). Tests check the scanner agrees with tomllib.
"""

from __future__ import annotations

import os
import sys

from tui.core.errors import AuthError, Problem
from tui.core.spec import paths
from tui.core.spec.keys import MANAGED_PROVIDER
from tui.core.text.phrase import N_, Phrase

TYPE_CHECKING = False  # no `typing`, no `pathlib`: the token path reads config.toml through here
if TYPE_CHECKING:
    import pathlib
    from typing import Any

CONFIG_LABEL = "assistant"  # "Failed to read assistant config: ..."
BOM = "\ufeff"


def config_error(detail: object, path: pathlib.Path | None = None) -> AuthError:
    """The spec's message for an unreadable config.toml, with the file to fix as the next step."""
    from tui.core.spec.hints import damaged_config  # lazy: off token's path

    return AuthError(f"Failed to read {CONFIG_LABEL} config: {detail}", damaged_config(path or paths.config_file()))


def read_config_raw(path: pathlib.Path | None = None) -> bytes | None:
    """config.toml's bytes through the file policy (regular, at most 1 MiB); None when missing."""
    return read_config_trusted(path)[0]


def read_config_trusted(path: pathlib.Path | None = None) -> tuple[bytes | None, str | None]:
    """config.toml's bytes (None when missing) and, from the `fstat` of the same open file, why it
    may not decide where refresh tokens go (None when it may): see `untrusted_because`."""
    from tui.core.files.regular import describe, read_regular_stat  # lazy: off token's path

    where = path or paths.config_file()
    try:
        raw, info = read_regular_stat(where)
    except FileNotFoundError:
        return None, None
    except PermissionError as exc:  # another owner (a sign-in under sudo): a file to give back, not to edit
        raise _not_yours(describe(exc), where, path) from None
    except OSError as exc:
        raise config_error(describe(exc), path) from None
    return raw, untrusted_because(info, str(where))


def _not_yours(detail: str, where: str | pathlib.Path, path: pathlib.Path | None) -> AuthError:
    from tui.core.files.owner import give_back, not_mine, whose  # lazy: off token's path

    found = not_mine(where)
    if found is None:
        return config_error(detail, path)
    hint = Phrase(
        N_("{path} belongs to {owner}: give your files back with `{command}`."),
        path=found[0],
        owner=whose(found[1]),
        command=give_back(paths.config_dir()),
    )
    return AuthError(f"Failed to read {CONFIG_LABEL} config: {detail}", hint, kind=Problem.NO_ACCESS)


def untrusted_because(info: os.stat_result, path: str) -> str | None:
    """Why a config.toml with this `stat` may not choose the host that receives refresh tokens,
    as OpenSSH's StrictModes refuses ~/.ssh/config: it belongs to another user, others can write
    it, or it sits in a directory others can write (and so could replace it). None when it may."""

    if info.st_uid != os.getuid():
        return f"{path} belongs to uid {info.st_uid}, not to you"
    if info.st_mode & 0o022:
        return f"others can write {path} (mode {info.st_mode & 0o777:04o})"
    directory = os.path.dirname(path) or "."
    try:
        mode = os.stat(directory).st_mode
    except OSError:
        return None
    if mode & 0o022 and not mode & 0o1000:  # a sticky directory (/tmp) lets no one replace our file
        return f"others can write {directory} (mode {mode & 0o777:04o}), so they can replace {os.path.basename(path)}"
    return None


def exposure(path: pathlib.Path | None = None) -> str | None:
    """One sentence with the fix when others can write config.toml (it decides where tokens go)
    or read it (it may hold api keys); None when it is private or missing."""

    where = str(path or paths.config_file())
    try:
        info = os.stat(where)
    except OSError:
        return None
    problem = untrusted_because(info, where)
    if problem:
        return f"Note: {problem}; it decides where refresh tokens go. Fix: chmod go-w {where} (or `assistant-auth doctor --fix`)."
    if info.st_mode & 0o044:
        return f"Note: others can read {where} (mode {info.st_mode & 0o777:04o}). Fix: chmod 600 {where}."
    return None


def config_trust_problem(path: pathlib.Path | None = None) -> str | None:
    """`untrusted_because` for callers that read config.toml another way (one `stat`)."""

    where = str(path or paths.config_file())
    try:
        return untrusted_because(os.stat(where), where)
    except OSError:
        return None


def read_config_bytes(path: pathlib.Path | None = None) -> bytes:
    """config.toml's bytes, b"" when missing."""
    return read_config_raw(path) or b""


def decode_config(raw: bytes) -> str:
    """UTF-8 text of config.toml; a leading byte-order mark is accepted (and kept by writers)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise config_error(exc) from None


def read_config_text(path: pathlib.Path | None = None) -> str:
    """The text of config.toml ('' when missing). AuthError for any other read problem."""
    return decode_config(read_config_bytes(path))


def parse_config(text: str) -> Any:
    """A tomlkit document; AuthError with the parser's line and column when the TOML is invalid."""
    import tomlkit  # lazy: heavy: tomlkit

    try:
        return tomlkit.parse(text.removeprefix(BOM))
    except Exception as exc:  # noqa: BLE001 - the one boundary: every parser error (duplicate
        # keys, bad nesting, recursion) becomes the spec's message, never a traceback
        failed = exc
    parse_config_readonly(text)  # one position for one error: the standard parser's, as doctor and `status` say it
    raise config_error(failed) from None  # only tomlkit refuses it: its words


def parse_config_readonly(text: str) -> dict[str, Any]:
    """A plain dict (tomllib): for listings and slot selection, never for writing."""
    if sys.version_info >= (3, 11):
        import tomllib  # lazy: off token's path
    else:  # Python 3.10: the same parser, from PyPI
        import tomli as tomllib  # lazy: off token's path

    try:
        return tomllib.loads(text.removeprefix(BOM))
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise config_error(exc) from None


def read_config_readonly() -> dict[str, Any]:
    return parse_config_readonly(decode_config(read_config_bytes()))


_HEADER = '[providers."' + MANAGED_PROVIDER + '"]'
_SUB_PREFIX = '[providers."' + MANAGED_PROVIDER + '".'
_OAUTH_HEADER = _SUB_PREFIX + "oauth]"
_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _bare_key(text: str) -> str | None:
    key = text.strip()
    return key if key and all(ch in _BARE for ch in key) else None


def _end_of_value(rest: str) -> bool:
    rest = rest.strip()
    return not rest or rest.startswith("#")


def _basic_string(text: str) -> tuple[str, str] | None:
    """A TOML basic string at the start of `text` (no escapes: the caller excludes backslashes):
    (value, what follows it), else None."""
    text = text.lstrip()
    if not text.startswith('"'):
        return None
    close = text.find('"', 1)
    return None if close < 0 else (text[1:close], text[close + 1 :])


def _string_value(text: str) -> str | None:
    found = _basic_string(text)
    return found[0] if found is not None and _end_of_value(found[1]) else None


def _inline_table(text: str) -> dict[str, str] | None:
    """`{ a = "x", b = "y" }` of plain strings, then only a comment; else None."""
    rest = text.strip()
    if not rest.startswith("{"):
        return None
    rest = rest[1:].lstrip()
    table: dict[str, str] = {}
    if rest.startswith("}"):
        return table if _end_of_value(rest[1:]) else None
    while True:
        name, eq, rest = rest.partition("=")
        key = _bare_key(name)
        found = _basic_string(rest) if eq and key is not None and key not in table else None
        if found is None or key is None:
            return None
        table[key] = found[0]
        rest = found[1].lstrip()
        if rest.startswith("}"):
            return table if _end_of_value(rest[1:]) else None
        if not rest.startswith(","):
            return None
        rest = rest[1:].lstrip()
        if rest.startswith("}"):
            return None  # a trailing comma: invalid in TOML 1.0


def scan_managed_provider(text: str) -> tuple[dict[str, Any] | None, str] | None:
    """A fast read of the managed provider's `oauth` table and `base_url`, for the token path.

    Handles the plain shapes this program and the official client write: one
    `[providers."managed:assistant-code"]` header with one-line `key = "value"` pairs, `oauth` as
    a one-line inline table of plain strings or as the sub-table `[providers."…".oauth]`, other
    sub-tables, and lines elsewhere whose value is the provider's name (`provider = "…"`).
    Returns None for anything else, and the caller parses the file with tomllib instead; tests
    check that wherever it answers, it answers exactly what tomllib does.
    """
    if '"""' in text or "'''" in text or "\\" in text or text.startswith("\ufeff"):
        return None
    scan = _Scan()
    try:
        for line in text.splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if stripped.startswith("["):
                scan.header(stripped)
            else:
                scan.pair(stripped)
    except _GiveUp:
        return None
    if scan.base_url is None or not scan.seen_main:
        return None
    return scan.oauth, scan.base_url


class _GiveUp(Exception):
    """A shape the fast scanner does not read: tomllib does."""


class _Scan:
    """The scanner's state line by line: which table it is in, what it has seen."""

    def __init__(self) -> None:
        self.section = "top"  # top | main | oauth | other
        self.seen_main = self.seen_oauth_table = False
        self.base_url: str | None = None
        self.oauth: dict[str, Any] | None = None
        self.keys: dict[str, set[str]] = {"main": set(), "oauth": set()}

    def header(self, stripped: str) -> None:
        if stripped.startswith("[["):
            if MANAGED_PROVIDER in stripped or "providers" in stripped:
                raise _GiveUp
            self.section = "other"
        elif stripped == _HEADER:
            if self.seen_main:
                raise _GiveUp
            self.seen_main, self.section = True, "main"
        elif stripped == _OAUTH_HEADER:
            if self.seen_oauth_table or self.oauth is not None:
                raise _GiveUp
            self.seen_oauth_table, self.section, self.oauth = True, "oauth", {}
        elif stripped.startswith(_SUB_PREFIX + "oauth") or (
            MANAGED_PROVIDER in stripped and not stripped.startswith(_SUB_PREFIX)
        ):
            raise _GiveUp
        else:
            self.section = "other"

    def pair(self, stripped: str) -> None:
        name, eq, value = stripped.partition("=")
        key = _bare_key(name)
        if not eq or key is None:
            raise _GiveUp  # dotted or quoted keys, continuation lines: leave them to tomllib
        section = self.section
        if section in self.keys:
            if key in self.keys[section]:
                raise _GiveUp
            self.keys[section].add(key)
        if section == "main":
            self.main_pair(key, value)
        elif section == "oauth":
            parsed = _string_value(value)
            if parsed is None or self.oauth is None:
                raise _GiveUp
            self.oauth[key] = parsed
        elif MANAGED_PROVIDER in stripped:
            if section == "top" or _string_value(value) != MANAGED_PROVIDER:
                raise _GiveUp  # only a plain reference by name, never a definition
        elif section == "top" and key == "providers":
            raise _GiveUp

    def main_pair(self, key: str, value: str) -> None:
        if key == "base_url":
            self.base_url = _string_value(value)
            if self.base_url is None:
                raise _GiveUp
        elif key == "oauth":
            if self.seen_oauth_table:
                raise _GiveUp
            self.oauth = _inline_table(value)
            if self.oauth is None:
                raise _GiveUp


def config_or_empty() -> dict[str, Any]:
    """config.toml parsed read-only, or {} when it is missing or unreadable (listings only)."""
    return config_and_problem()[0]


def config_and_problem() -> tuple[dict[str, Any], AuthError | None]:
    """config.toml parsed read-only and None; or {} and why it cannot be read (for listings that
    say so instead of hiding it)."""
    text, problem = config_text_and_problem()
    return ({}, problem) if problem is not None else parsed_and_problem(text)


def config_text_and_problem() -> tuple[str, AuthError | None]:
    """config.toml's text ('' when missing) and None; or '' and why it cannot be read."""
    try:
        return read_config_text(), None
    except AuthError as exc:
        return "", exc


def parsed_and_problem(text: str) -> tuple[dict[str, Any], AuthError | None]:
    """config.toml's `text` parsed read-only and None; or {} and why it does not parse."""
    try:
        return parse_config_readonly(text), None
    except AuthError as exc:
        return {}, exc


def holds_secret(node: object) -> bool:
    """A non-empty value under a secret name (api_key, …) anywhere in the parsed config."""
    from tui.core.text.redact import is_secret_name  # lazy: off token's path

    if isinstance(node, dict):
        return any((is_secret_name(k) and isinstance(v, str) and v) or holds_secret(v) for k, v in node.items())
    if isinstance(node, list):
        return any(holds_secret(v) for v in node)
    return False
