"""Editing providers in config.toml: validation, round-trip edits, diffs and safe saves.

Edits go through tomlkit, so comments, ordering, whitespace and unrelated tables stay as they
were; only the edited values change. A save refuses to overwrite a file that changed on disk
since it was loaded, keeps `config.toml.bak`, and writes atomically.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import pathlib
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tui.core import paths
from tui.core.atomic import atomic_write
from tui.core.config.provider import providers_table, write_config_text
from tui.core.config.read import decode_config, parse_config, read_config_raw
from tui.core.errors import AuthError
from tui.core.http import insecure_reason
from tui.core.keys import resolve_storage_name
from tui.core.redact import is_secret_name, mask

# Fields a person edits, and how they are stored.
TEXT_FIELDS = ("base_url", "api_key", "note")
BOOL_FIELDS = ("enabled", "active")
OAUTH_FIELDS = {"oauth_key": "key", "oauth_host": "oauthHost"}
SECRET_FIELDS = ("api_key",)


class ConfigChanged(AuthError):
    """The file changed on disk since it was loaded: saving would lose someone's edit."""


@dataclass(frozen=True)
class Snapshot:
    """What was loaded: the exact bytes, so a save can tell whether the file moved under us."""

    path: pathlib.Path
    raw: bytes | None  # None: the file did not exist

    @property
    def text(self) -> str:
        return "" if self.raw is None else self.raw.decode("utf-8")

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.raw or b"").hexdigest()


def load_snapshot(path: pathlib.Path | None = None) -> Snapshot:
    path = path or paths.config_path()
    raw = read_config_raw(path)
    if raw is not None:
        decode_config(raw)  # AuthError now, not when the editor shows the text
    return Snapshot(path, raw)


def validate(field: str, value: object) -> str | None:
    """An error message for a field value, or None when it is acceptable."""
    if field == "base_url":
        parts = urlsplit(str(value).strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "base_url must be an http(s) URL, e.g. https://api.example.com/coding/v1"
        return None
    if field == "oauth_host":
        text = str(value).strip()
        if not text:
            return None  # empty: remove oauthHost (the cn host is used)
        parts = urlsplit(text)
        if not parts.hostname or parts.scheme not in ("http", "https"):
            return "oauthHost must be a URL like https://auth.example.com"
        if insecure_reason(text):  # the transport rule the refresh itself enforces
            return "oauthHost must use https:// (http:// only for loopback addresses)"
        return None
    if field == "oauth_key":
        text = str(value).strip()
        if not text:
            return None  # empty: the key is derived from oauthHost and base_url
        try:
            resolve_storage_name(text)
        except AuthError as exc:
            return str(exc)
        return None
    if field in BOOL_FIELDS:
        return None if isinstance(value, bool) else f"{field} must be true or false"
    if field in ("api_key", "note"):
        text = str(value)
        if re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text):
            return f"{field} must not contain control characters"
        return None
    return f"{field} cannot be edited here"


def provider_fields(entry: Any) -> dict[str, object]:
    """The editable values of a provider entry, as plain Python values."""
    oauth = entry.get("oauth") if isinstance(entry.get("oauth"), dict) else {}
    out: dict[str, object] = {}
    for field in TEXT_FIELDS:
        value = entry.get(field)
        out[field] = str(value) if isinstance(value, str) else ""
    for field in BOOL_FIELDS:
        out[field] = bool(entry.get(field)) if isinstance(entry.get(field), bool) else False
    for field, toml_name in OAUTH_FIELDS.items():
        value = oauth.get(toml_name)
        out[field] = str(value) if isinstance(value, str) else ""
    return out


def edit_provider(text: str, name: str, changes: dict[str, object]) -> str:
    """Pure: `text` with the provider's changed fields set; everything else byte for byte.

    Only fields whose value differs from the current one are touched. Raises AuthError on an
    invalid value or a missing provider.
    """
    import tomlkit

    for field, value in changes.items():
        problem = validate(field, value)
        if problem:
            raise AuthError(problem)
    doc = parse_config(text)
    table = providers_table(doc)
    entry = table.get(name) if table is not None else None
    if not isinstance(entry, dict):
        raise AuthError(f"No provider named {name!r} in config.toml")
    current = provider_fields(entry)
    for field, value in changes.items():
        if current.get(field) == value:
            continue
        if field in OAUTH_FIELDS:
            oauth = entry.get("oauth")
            if not isinstance(oauth, dict):
                oauth = tomlkit.inline_table()
                oauth["storage"] = "file"
                entry["oauth"] = oauth
                oauth = entry["oauth"]
            toml_name = OAUTH_FIELDS[field]
            stripped = str(value).strip()
            if stripped:
                oauth[toml_name] = stripped
            elif toml_name in oauth:
                del oauth[toml_name]
        elif field == "base_url":
            entry[field] = str(value).strip()
        else:
            entry[field] = value
    return tomlkit.dumps(doc)


_SECRET_LINE = re.compile(
    r'(?P<head>(?:^|[{,])[+\- ]?\s*"?(?:' + "|".join(SECRET_FIELDS) + r')"?\s*=\s*)(?P<q>["\'])(?P<v>[^"\'\n]*)(?P=q)',
    re.MULTILINE,
)


def secret_literals(text: str) -> list[tuple[str, str]]:
    """(raw TOML literal, value) of every string whose key is a secret name, at any depth, read
    from the parsed document: dotted keys, quoted names, multi-line and literal strings included.
    Empty when the text does not parse (the line pattern is then the only net)."""
    try:
        doc = parse_config(text)
    except AuthError:
        return []
    found: list[tuple[str, str]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and is_secret_name(key) and str(value):
                    raw = value.as_string() if hasattr(value, "as_string") else json.dumps(str(value))
                    found.append((raw, str(value)))
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)
    return found


def _hide_literals(text: str, literals: list[tuple[str, str]]) -> str:
    for raw, value in sorted(literals, key=lambda pair: len(pair[0]), reverse=True):
        text = text.replace(raw, json.dumps(mask(value), ensure_ascii=False))
        if "\n" in raw:  # a multi-line string cut into diff lines: hide every piece of it
            for piece in raw.splitlines():
                if piece.strip():
                    text = text.replace(piece, "•••")
    return text


def _hide_by_pattern(text: str) -> str:
    def hide(match: re.Match) -> str:
        value = match.group("v")
        shown = mask(value) if value and "…" not in value and set(value) != {"•"} else value
        return f"{match.group('head')}{match.group('q')}{shown}{match.group('q')}"

    return _SECRET_LINE.sub(hide, text)


def mask_secrets(text: str) -> str:
    """TOML text with every secret value (api_key, …) masked: from the parsed document, so no
    spelling escapes, then the line pattern as a second net (for text that does not parse)."""
    return _hide_by_pattern(_hide_literals(text, secret_literals(text)))


def masked_diff(old: str, new: str, filename: str = "config.toml", context: int = 1) -> str:
    """A unified diff with the secret values of both versions masked (from the parsed documents);
    one line of context so the change itself fits in a small dialog."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        f"{filename} (on disk)",
        f"{filename} (edited)",
        n=context,
    )
    return _hide_by_pattern(_hide_literals("".join(lines), secret_literals(old) + secret_literals(new)))


def save_snapshot(snapshot: Snapshot, new_text: str) -> pathlib.Path | None:
    """Write `new_text` over the file loaded as `snapshot`.

    Raises ConfigChanged if the file on disk is no longer what was loaded. The previous content
    is kept as `config.toml.bak` (same mode). Returns the backup path, if one was written.
    """
    current = load_snapshot(snapshot.path)
    if current.raw != snapshot.raw:
        raise ConfigChanged(
            f"{snapshot.path} changed on disk since it was loaded; reload it and make your edit again"
        )
    parse_config(new_text)  # never write what we could not read back
    backup = None
    if snapshot.raw is not None:
        backup = snapshot.path.with_name(snapshot.path.name + ".bak")
        mode = snapshot.path.stat().st_mode & 0o777
        try:
            atomic_write(backup, snapshot.raw, mode=mode)
        except OSError as exc:
            raise AuthError(f"Failed to write assistant config backup: {exc.strerror or exc}") from None
    write_config_text(new_text, snapshot.path, previous=snapshot.text)  # checked equal to disk above
    return backup
