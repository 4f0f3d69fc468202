"""What state a credential slot is in: one pure classification shared by TUI, CLI and inspector."""

from __future__ import annotations

import os
import pathlib
import stat
import time
from dataclasses import dataclass, field, replace
from typing import Any

from tui.core.credentials import rejections
from tui.core.credentials.jwt import IDENTITY_WIDTH, identity_of
from tui.core.credentials.slot import expires_at_of, field_problem, is_expired, is_tombstone, usable_token
from tui.core.files import jsonutil
from tui.core.files.access import Blocked
from tui.core.files.identity import read_device_id
from tui.core.files.owner import give_back, not_mine, whose
from tui.core.files.regular import describe, read_regular_stat
from tui.core.spec import paths
from tui.core.spec.keys import login_command, named_account_label, region_of_slot
from tui.core.text.i18n import _
from tui.core.text.phrase import N_, Phrase, said
from tui.core.text.untrusted import one_line

# state values: every state a slot can be in, one table (docs/doctor.md) that every view and use reads
VALID = "valid"
EXPIRED = "expired"
MISSING = "missing"
DANGLING = "dangling_link"  # a symbolic link whose target is gone (a dotfiles repo that moved)
UNREADABLE = "unreadable"  # the system refused to open it (another owner, a directory one cannot enter)
EMPTY_FILE = "empty"  # 0 bytes (or only white space): a crash or a full disk while it was written
UNPARSABLE = "unparsable"
NOT_OBJECT = "not_object"
NO_ACCESS_TOKEN = "no_access_token"  # noqa: S105 - a state name, not a secret
BAD_FIELD = "bad_field"  # a field of the wrong type (`"expires_at": "1795880980"`): `token` cannot use it
BROKEN = (EMPTY_FILE, UNPARSABLE, NOT_OBJECT, NO_ACCESS_TOKEN, BAD_FIELD)  # moved aside, never mended
REVOKED = "revoked"  # the official client's tombstone after a rejected refresh
REVOKED_DETAIL = N_("the official client marked this session revoked; sign in again with `{command}`")
NO_FILE_DETAIL = N_("no credential file")
NO_ACCESS_TOKEN_DETAIL = N_("no access_token string")
EMPTY_DETAIL = N_("0 bytes: a write that did not finish (a crash, a full disk)")
BLANK_DETAIL = N_("only white space")
DANGLING_DETAIL = N_("a symbolic link to {target}, which does not exist")
NOT_YOURS_DETAIL = N_("{problem}: {where} belongs to {owner}; give it back with `{command}`")
OUR_DETAILS = (NO_FILE_DETAIL, NO_ACCESS_TOKEN_DETAIL, EMPTY_DETAIL, BLANK_DETAIL)  # said in the reader's language

LABELS = {
    VALID: N_("valid"),
    EXPIRED: N_("expired"),
    MISSING: N_("missing"),
    DANGLING: N_("link to a missing file"),
    UNREADABLE: N_("unreadable"),
    EMPTY_FILE: N_("empty"),
    UNPARSABLE: N_("unparsable"),
    NOT_OBJECT: N_("not an object"),
    NO_ACCESS_TOKEN: N_("missing access_token"),
    BAD_FIELD: N_("a field of the wrong type"),
    REVOKED: N_("signed out (revoked)"),
}


def slot_title(name: str, width: int = 60) -> str:
    """How a person names a slot: a named account `work (cn)`, a region's own slot its region
    (as Home says it), else its file's name (one line of at most `width`)."""
    return named_account_label(name) or region_of_slot(name) or one_line(name, width)


@dataclass(frozen=True)
class SlotStatus:
    name: str
    path: pathlib.Path
    state: str
    detail: str = ""
    has_refresh_token: bool = False
    expires_at: float | None = None
    scope: str | None = None
    token_type: str | None = None
    mode: int | None = None
    size: int | None = None
    mtime: float | None = None
    fields: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    refresh_rejected_at: float | None = None  # the server rejected the refresh token in the file
    link: str | None = None  # where the slot's path points when it is a symbolic link
    owner_uid: int | None = None  # the owner of the file, or of what keeps it from being read

    @property
    def refresh_rejected(self) -> bool:
        return self.refresh_rejected_at is not None

    @property
    def usable(self) -> bool:
        """A token can be had without signing in: valid, or expired with a refresh token that the
        server has not rejected."""
        if self.state == VALID:
            return True
        return self.state == EXPIRED and self.has_refresh_token and not self.refresh_rejected

    @property
    def has_expiry(self) -> bool:
        """Readable credentials whose expiry is worth showing."""
        return self.state in (VALID, EXPIRED)

    @property
    def detail_text(self) -> str:
        """`detail` for a person: in the reader's language when it is one of ours; a parser's or
        the system's words as they came (`detail` itself stays English: `status --json` has it)."""
        if isinstance(self.detail, Phrase):
            return self.detail.said()
        return _(self.detail) if self.detail in OUR_DETAILS else self.detail

    @property
    def label(self) -> str:
        """The state in the reader's language: "valid (no refresh token)"."""
        return said(self.label_phrase)

    @property
    def label_phrase(self) -> str:
        """The state as a `Phrase` (English as text, said in the reader's language), for findings
        that are data too (doctor's); an unknown state name as it is."""
        text: str = Phrase(LABELS[self.state]) if self.state in LABELS else self.state
        if self.state in (VALID, EXPIRED) and not self.has_refresh_token:
            return Phrase(N_("{state} (no refresh token)"), state=text)
        if self.state in (VALID, EXPIRED) and self.refresh_rejected:
            return Phrase(N_("{state} (refresh rejected)"), state=text)
        return text

    @property
    def identity_claim(self) -> str | None:
        """The identity as the token's claims give it (for JSON, faithful)."""
        if not self.has_expiry:
            return None
        return identity_of(self.fields.get("access_token"))

    @property
    def identity(self) -> str | None:
        """Who the access token says is signed in (claims decoded, not verified): `name`,
        `preferred_username`, `email`, else `sub`; None for an opaque token. Never more of it.
        As one printable line: a claim is text from outside, and this is what every face shows."""
        claim = self.identity_claim
        return None if claim is None else one_line(claim, IDENTITY_WIDTH)

    def title(self, width: int) -> str:
        """How a list names the slot (`slot_title`)."""
        return slot_title(self.name, width)

    @property
    def region(self) -> str | None:
        """The region ("cn" or "global") whose sign-in writes this slot, with the current settings."""
        return region_of_slot(self.name)

    def expires_in(self, now: float | None = None) -> float | None:
        if self.expires_at is None:
            return None
        return self.expires_at - (time.time() if now is None else now)

    def to_dict(self) -> dict[str, Any]:
        """For `status --json`: never a token."""
        return {
            "name": self.name,
            "path": str(self.path),
            "state": self.state,
            "usable": self.usable,
            "refresh_rejected": self.refresh_rejected,
            "has_refresh_token": self.has_refresh_token,
            "expires_at": self.expires_at,
            "scope": self.scope,
            "identity": self.identity_claim,
            "region": self.region,
            "token_type": self.token_type,
            "mode": None if self.mode is None else f"{self.mode:04o}",
            "detail": self.detail or None,
            "link": self.link,
            "owner_uid": self.owner_uid,
        }

    @property
    def sign_in(self) -> str:
        """The sign-in that writes this slot again (its region and account: never a plain
        `login` for another region's slot)."""
        return login_command(self.name)


def classify(name: str, path: pathlib.Path, now: float | None = None) -> SlotStatus:
    """The state of the slot file at `path`: one reading (the rules of `parse_credentials`), so a
    file every view calls usable is one `token` can use, and one it cannot is named by its cause."""
    link = _link_target(path)
    try:
        raw, info = read_regular_stat(path)
    except FileNotFoundError:
        if link is not None:
            return SlotStatus(name, path, DANGLING, Phrase(DANGLING_DETAIL, target=link), link=link)
        return SlotStatus(name, path, MISSING, NO_FILE_DETAIL)
    except PermissionError as exc:
        return _not_yours(name, path, exc, link)
    except OSError as exc:
        return SlotStatus(name, path, UNREADABLE, describe(exc, with_path=False), link=link)
    read = SlotStatus(
        name,
        path,
        UNPARSABLE,
        mode=stat.S_IMODE(info.st_mode),
        size=info.st_size,
        mtime=info.st_mtime,
        link=link,
        owner_uid=info.st_uid,
    )
    if not raw.strip():
        return replace(read, state=EMPTY_FILE, detail=EMPTY_DETAIL if not raw else BLANK_DETAIL)
    try:
        data = jsonutil.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return replace(read, detail=str(exc))
    if not isinstance(data, dict):
        return replace(read, state=NOT_OBJECT, detail=f"JSON {type(data).__name__}, expected an object")
    problem = field_problem(data)
    if problem is not None:
        state = BAD_FIELD if isinstance(data.get("access_token"), str) else NO_ACCESS_TOKEN
        return replace(read, state=state, detail=NO_ACCESS_TOKEN_DETAIL if state == NO_ACCESS_TOKEN else problem)
    refresh = data.get("refresh_token")
    parsed = replace(
        read,
        detail="",
        has_refresh_token=isinstance(refresh, str) and bool(refresh),
        expires_at=expires_at_of(data),
        scope=data.get("scope") if isinstance(data.get("scope"), str) else None,
        token_type=data.get("token_type") if isinstance(data.get("token_type"), str) else None,
        fields=data,
    )
    if is_tombstone(data):
        return replace(parsed, state=REVOKED, detail=Phrase(REVOKED_DETAIL, command=login_command(name)))
    # an empty or unprintable access token is what `token` refreshes on its next use, as an expired one
    expired = is_expired(data, now) or not usable_token(data["access_token"])
    return replace(parsed, state=EXPIRED if expired else VALID, refresh_rejected_at=rejections.rejected_at(name, data))


def _not_yours(name: str, path: pathlib.Path, exc: OSError, link: str | None) -> SlotStatus:
    """A file this user may not read: whose it is (or the directory above it), and the command
    that gives it back (a first sign-in under sudo leaves the whole home to root)."""
    found = not_mine(path)
    if found is None:
        return SlotStatus(name, path, UNREADABLE, describe(exc, with_path=False), link=link)
    where, uid = found
    detail = Phrase(
        NOT_YOURS_DETAIL,
        problem=describe(exc, with_path=False),
        where=where,
        owner=whose(uid),
        command=give_back(paths.config_dir()),
    )
    return SlotStatus(name, path, UNREADABLE, detail, link=link, owner_uid=uid)


def _link_target(path: pathlib.Path) -> str | None:
    """Where `path` points when it is a symbolic link (as written in the link), else None."""
    try:
        return str(path.readlink()) if path.is_symlink() else None
    except OSError:
        return None


def signed_in_as(status: SlotStatus) -> str:
    """ "Signed in as user-1 · global" (or without the name when the token carries none), in the
    reader's language."""
    return said(signed_in_phrase(status))


def signed_in_phrase(status: SlotStatus) -> Phrase:
    """`signed_in_as` as a `Phrase`, for findings that are data too (doctor's)."""
    slot = one_line(status.name, 60)
    named = named_account_label(status.name)
    if named and status.identity:
        return Phrase(N_("Signed in as {who} · {region}"), who=status.identity, region=named)
    if status.identity and status.region:
        return Phrase(N_("Signed in as {who} · {region}"), who=status.identity, region=status.region)
    if status.identity:
        return Phrase(N_("Signed in as {who} · slot {slot}"), who=status.identity, slot=slot)
    if status.region:
        return Phrase(N_("Signed in · {region}"), region=status.region)
    return Phrase(N_("Signed in · slot {slot}"), slot=slot)


def file_warnings(blocked: Blocked | None) -> list[str]:
    """One line per problem of the private files that is not a slot's state: a directory others
    can read, write or enter (it should be 0700), a device_id file that is ignored (unless the home
    is `blocked`: another owner's, said once with its own fix). Each is a
    `Phrase` starting "warning: " (English in `status --json`, said in the reader's language)."""
    found = []
    for directory in (paths.config_dir(), paths.credentials_dir()):
        try:
            info = directory.stat()
        except OSError:
            continue
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077 and info.st_uid == os.getuid():  # another owner's: its own warning says the fix (sudo)
            text = N_(
                "warning: {path} has mode {mode}: other users can reach your credentials; "
                "run `chmod 700 {path}` (or press m in `assistant-auth inspect`)"
            )
            found.append(Phrase(text, path=directory, mode=f"{mode:04o}"))
    problem = read_device_id()[1]
    if problem and blocked is None:
        text = N_("warning: {problem} (no device id header is sent; remove the file to get a new one)")
        found.append(Phrase(text, problem=problem))
    return [one_line(line, 1000) for line in found]


def slot_status(storage_name: str, now: float | None = None) -> SlotStatus:
    return classify(storage_name, paths.credentials_path(storage_name), now)


def list_slots(now: float | None = None) -> list[SlotStatus]:
    """Every `*.json` in the credentials dir, the default slot first (listed even when missing)."""
    directory = paths.credentials_dir()
    names = set()
    try:
        for entry in directory.iterdir():
            if entry.name.endswith(".json") and not entry.name.startswith("."):
                names.add(entry.name[: -len(".json")])
    except OSError:
        pass
    names.discard("assistant-code")
    ordered = ["assistant-code"] + sorted(names)
    return [slot_status(name, now) for name in ordered]
