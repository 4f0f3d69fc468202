"""Editing providers in config.toml: validation, round-trip edits, diffs and safe saves.

Edits go through tomlkit, so comments, ordering, whitespace and unrelated tables stay as they
were; only the edited values change. A save refuses to overwrite a file that changed on disk
since it was loaded, keeps `config.toml.bak`, and writes atomically.
"""

from __future__ import annotations

import difflib
import pathlib
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from tui.core.config.guard import config_edit
from tui.core.config.provider import providers_table, write_config_text
from tui.core.config.read import CONFIG_LABEL, decode_config, parse_config, read_config_raw
from tui.core.errors import AuthError, Problem
from tui.core.files.atomic import atomic_write
from tui.core.files.regular import MAX_FILE
from tui.core.http import insecure_reason
from tui.core.spec import paths
from tui.core.spec.digest import sha256_hex
from tui.core.spec.keys import resolve_storage_name
from tui.core.text.i18n import _
from tui.core.text.redact import is_secret_name, mask

# Fields a person edits, and how they are stored.
TEXT_FIELDS = ("base_url", "api_key", "note")
BOOL_FIELDS = ("enabled", "active")
OAUTH_FIELDS = {"oauth_key": "key", "oauth_host": "oauthHost"}
SECRET_FIELDS = ("api_key",)

KeyPath = tuple[str | int, ...]  # a value's place in a TOML document: keys and array indexes


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
        return sha256_hex(self.raw or b"")


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
            return _("base_url must be an http(s) URL, e.g. https://api.example.com/coding/v1")
        return None
    if field == "oauth_host":
        text = str(value).strip()
        if not text:
            return None  # empty: remove oauthHost (the cn host is used)
        parts = urlsplit(text)
        if not parts.hostname or parts.scheme not in ("http", "https"):
            return _("oauthHost must be a URL like https://auth.example.com")
        if insecure_reason(text):  # the transport rule the refresh itself enforces
            return _("oauthHost must use https:// (http:// only for loopback addresses)")
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
        return None if isinstance(value, bool) else _("{field} must be true or false").format(field=field)
    if field in ("api_key", "note"):
        text = str(value)
        if re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text):
            return _("{field} must not contain control characters").format(field=field)
        return None
    return _("{field} cannot be edited here").format(field=field)


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
    import tomlkit  # lazy: heavy: tomlkit

    for field, value in changes.items():
        problem = validate(field, value)
        if problem:
            raise AuthError(problem)
    doc = parse_config(text)
    table = providers_table(doc)
    entry = table.get(name) if table is not None else None
    if not isinstance(entry, dict):
        raise AuthError(f"No provider named {name!r} in config.toml", kind=Problem.UNKNOWN_PROVIDER)
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


def masked_document(text: str, before: dict[KeyPath, str] | None = None) -> tuple[str, dict[KeyPath, str]] | None:
    """`text` with every secret value (a string under a secret name: api_key, …, at any depth, in
    any TOML spelling: dotted or quoted keys, inline tables, arrays of tables, basic, literal and
    multi-line strings) replaced by its mask through the parsed document, so no line of it stays;
    and {key path: value} of what was masked. None when the text does not parse.

    `before`: the masked values of the version this one is compared with; a changed value whose
    mask happens to be the same is marked "(changed)", so a diff still shows the change."""
    import tomlkit  # lazy: heavy: tomlkit

    try:
        doc = parse_config(text)
    except AuthError:
        return None
    found: dict[KeyPath, str] = {}

    def shown(value: str, path: KeyPath) -> str:
        masked = mask(value)
        if before is not None and before.get(path, value) != value and mask(before[path]) == masked:
            masked += " (changed)"
        return masked

    def walk(node: Any, path: KeyPath) -> None:
        if isinstance(node, dict):
            for key in list(node.keys()):
                value, here = node[key], path + (str(key),)
                if is_secret_name(key) and isinstance(value, str):
                    if str(value):
                        found[here] = str(value)
                        node[key] = shown(str(value), here)
                elif is_secret_name(key) and isinstance(value, list):
                    for index, item in enumerate(list(value)):
                        if isinstance(item, str) and str(item):
                            found[here + (index,)] = str(item)
                            value[index] = shown(str(item), here + (index,))
                else:
                    walk(value, here)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, path + (index,))

    walk(doc, ())
    return tomlkit.dumps(doc), found


_OPENS_MULTILINE = re.compile(r'^[+\- ]?\s*"?(?:' + "|".join(SECRET_FIELDS) + r')"?\s*=\s*("""|\'\'\')', re.MULTILINE)


def _hide_multiline_by_pattern(text: str) -> str:
    """For text that does not parse: every line of a multi-line string opened under a secret name,
    up to its closing quotes (or the end), becomes bullets."""
    lines = text.split("\n")
    out, closing = [], None
    for line in lines:
        if closing is not None:
            out.append("•••" + (closing if closing in line else ""))
            if closing in line:
                closing = None
            continue
        match = _OPENS_MULTILINE.match(line)
        if match and line.count(match.group(1)) == 1:
            closing = match.group(1)
            out.append(line[: match.end()] + "•••")
        else:
            out.append(line)
    return "\n".join(out)


def _hide_by_pattern(text: str) -> str:
    def hide(match: re.Match[str]) -> str:
        value = match.group("v")
        shown = mask(value) if value and "…" not in value and set(value) != {"•"} else value
        return f"{match.group('head')}{match.group('q')}{shown}{match.group('q')}"

    return _SECRET_LINE.sub(hide, _hide_multiline_by_pattern(text))


def mask_secrets(text: str) -> str:
    """TOML text with every secret value masked: through the parsed document, so no spelling and
    no line of a multi-line value escapes; text that does not parse gets the line patterns."""
    masked = masked_document(text)
    return masked[0] if masked is not None else _hide_by_pattern(text)


def masked_diff(old: str, new: str, filename: str = "config.toml", context: int = 1) -> str:
    """A unified diff of the two versions with their secret values masked first (from the parsed
    documents: every line of a multi-line secret, on both sides); one line of context so the
    change itself fits in a small dialog."""
    before = masked_document(old)
    after = masked_document(new, before[1] if before is not None else None)
    old_shown = before[0] if before is not None else _hide_by_pattern(old)
    new_shown = after[0] if after is not None else _hide_by_pattern(new)
    lines = difflib.unified_diff(
        old_shown.splitlines(keepends=True),
        new_shown.splitlines(keepends=True),
        f"{filename} (on disk)",
        f"{filename} (edited)",
        n=context,
    )
    return _hide_by_pattern("".join(lines))


def fits(text: str) -> None:
    """AuthError when `text` is larger than config.toml's readers take (a large paste): never
    saved, as a file that does not parse is never saved."""
    size = len(text.encode("utf-8"))
    if size > MAX_FILE:
        raise AuthError(
            f"{CONFIG_LABEL} config would be {size} bytes, more than its readers take ({MAX_FILE}): nothing was written"
        )


def save_snapshot(snapshot: Snapshot, new_text: str) -> pathlib.Path | None:
    """Write `new_text` over the file loaded as `snapshot`.

    Raises ConfigChanged if the file on disk is no longer what was loaded. The previous content
    is kept as `config.toml.bak` (same mode). Returns the backup path, if one was written.
    """
    fits(new_text)  # never write what we could not read back: too large for its readers,
    parse_config(new_text)  # or not TOML
    with config_edit():  # one writer of ours at a time: a `switch` cannot land between the check and the write
        return _save_unchanged(snapshot, new_text)


def _save_unchanged(snapshot: Snapshot, new_text: str) -> pathlib.Path | None:
    current = load_snapshot(snapshot.path)
    if current.raw != snapshot.raw:
        raise ConfigChanged(f"{snapshot.path} changed on disk since it was loaded; reload it and make your edit again")
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
