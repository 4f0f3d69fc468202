"""One record of every credential slot and what points at it: the one source for `status`, the
credential inspector and Home, so the three can never disagree.

It answers, from one read of the credentials directory and one read of config.toml: which slots
exist (the default slot and both regions' slots always, any other `*.json` on disk), who is
signed in to each and in what state, which slot the managed provider uses (read as `token` reads
it), what is wrong with the private files; and, parsed once when first asked (Home never asks, so
its first frame loads no TOML parser), which providers of config.toml use each slot, which lack
the host their key was made for, and whether config.toml itself could not be read.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from tui.core.config.read import config_text_and_problem, config_trust_problem, parsed_and_problem
from tui.core.errors import AuthError
from tui.core.files.access import Blocked, home_blocked
from tui.core.signin import ondisk
from tui.core.slots.accounts import Account, accounts_in
from tui.core.slots.choice import inferred_hosts, managed_slot, providers_by_slot
from tui.core.slots.state import MISSING, SlotStatus, file_warnings, list_slots, slot_status
from tui.core.spec.keys import DEFAULT_STORAGE_NAME, account_of_slot, region_storage_name
from tui.core.spec.settings import REGIONS
from tui.core.text.humantime import clock
from tui.core.text.i18n import _
from tui.core.text.phrase import said
from tui.core.text.untrusted import one_line

if TYPE_CHECKING:  # pragma: no cover - the sign-in's record loads only where one is on disk (ondisk)
    from tui.core.signin.record import Record


@dataclass(frozen=True)
class Overview:
    """What `overview()` read. The fields are read at once; `users`, `missing_hosts` and
    `config_problem` parse the config.toml text read with them, once, when first asked."""

    slots: list[SlotStatus]  # every slot on disk, the default slot first (listed even when missing)
    warnings: list[str]  # problems of the private files that are not a slot's state
    managed: str | None  # the slot of `managed:assistant-code`, None without that entry
    config_text: str = ""  # config.toml as read ("" when missing or unreadable)
    read_problem: AuthError | None = None  # why config.toml could not be read, if it could not
    now: float | None = None  # the time states were classified at (None: the clock)
    away: list[Record] = field(default_factory=list)  # sign-ins that ended without a terminal, unseen
    waiting: list[Record] = field(default_factory=list)  # sign-ins still waiting for approval, any terminal
    blocked: Blocked | None = None  # the home cannot be written by this user (another owner's): why, the fix

    @cached_property
    def _config(self) -> tuple[dict[str, Any], AuthError | None]:
        return ({}, self.read_problem) if self.read_problem is not None else parsed_and_problem(self.config_text)

    @property
    def config_problem(self) -> AuthError | None:
        """Why config.toml could not be read or parsed, if it could not."""
        return self._config[1]

    @cached_property
    def users(self) -> dict[str, list[str]]:
        """slot -> names of the providers of config.toml that use it."""
        return providers_by_slot(self._config[0])

    @cached_property
    def missing_hosts(self) -> dict[str, str]:
        """provider -> the host its scoped key was made for (not named in its table)."""
        return inferred_hosts(self._config[0])

    def away_json(self) -> dict[str, Any] | None:
        """`status --json`'s `away`: the latest unseen one (schema 1, additive)."""
        if not self.away:
            return None
        record = self.away[-1]
        return record.summary()

    @property
    def default_slot(self) -> str:
        """The slot `token`, `status`, `refresh` and `logout` use without a selector."""
        return self.managed or DEFAULT_STORAGE_NAME

    def slot(self, name: str) -> SlotStatus:
        """The state of slot `name`: from the listing, else classified now (a missing slot)."""
        listed = next((status for status in self.slots if status.name == name), None)
        return listed if listed is not None else slot_status(name, self.now)

    def region_slot(self, region: object) -> SlotStatus:
        return self.slot(region_storage_name(str(region)))

    @cached_property
    def accounts(self) -> list[Account]:
        """Every account with a file on disk (the regions' own and the named ones), the active
        one (the managed provider's) marked."""
        return accounts_in(self.slots, self.managed)

    @property
    def dangling(self) -> tuple[str, str] | None:
        """(region, name) of the account the managed provider names when it has no file here
        (a hand edit, or signed out): reported, never repointed."""
        named = account_of_slot(self.managed) if self.managed else None
        if named is None or named.is_default:
            return None
        return named if self.slot(self.managed or "").state == MISSING else None

    def file_notices(self) -> list[str]:
        """The warnings that need no TOML parser (Home's first frame): the private files'
        (`warnings`), a home this user cannot write, credential files others can read, a
        config.toml others can write. Each one line starting "warning: ", with its repair, in the
        reader's language."""
        lines = [said(warning) for warning in self.warnings]
        blocked = self.blocked
        if blocked is not None:
            lines.append(_("warning: {problem}. {fix}").format(problem=said(blocked.why), fix=said(blocked.fix)))
        for status in self.slots:
            if status.mode is not None and status.mode & 0o077:
                lines.append(
                    _(
                        "warning: {path} has mode {mode}: other users can read your tokens; run `chmod 600 {path}` "
                        "(or `assistant-auth doctor --fix`)."
                    ).format(path=one_line(status.path, 1000), mode=f"{status.mode:04o}")
                )
        untrusted = config_trust_problem()
        if untrusted is not None:
            lines.append(
                _(
                    "warning: {problem}: no refresh token is sent to a host it names; run `assistant-auth doctor --fix`."
                ).format(problem=one_line(untrusted, 1000))
            )
        return lines

    def config_notices(self) -> list[str]:
        """The warnings that parse config.toml: it cannot be read or parsed (with the restore of
        the last good copy when there is one), the managed provider's entry gone while a region is
        signed in."""
        problem = self.config_problem
        if problem is not None:
            from tui.core.config.restore import backup_path, restore_offer  # lazy: the wizard's cold start

            lines = [_("warning: {problem}").format(problem=problem.said(lead=False))]
            restore = restore_offer()  # a file that does not parse, or one too large to read
            if restore is not None:
                lines.append(
                    _(
                        "`assistant-auth doctor --fix` (or b in `assistant-auth config`) restores {backup}, the copy "
                        "from before the provider editor's save at {saved}."
                    ).format(backup=backup_path(restore.path), saved=restore.saved)
                )
            return lines
        if self.managed is not None or not self.config_text.strip():
            return []
        signed_in = [status for status in (self.region_slot(r) for r in REGIONS) if status.usable]
        if not signed_in:
            return []
        region = signed_in[0].region or "cn"
        return [
            _(
                "warning: config.toml has no managed provider entry, so the official client does not use your "
                "sign-in: `assistant-auth switch --region {region}` writes it back."
            ).format(region=region)
        ]

    def notices(self) -> list[str]:
        """Every warning `status` prints beside the slots, and Home shows: one list, from this reading."""
        return self.file_notices() + self.config_notices()

    def with_regions(self) -> list[SlotStatus]:
        """Both regions' slots first (cn, global; listed even when missing), then every other
        slot on disk by name: the order Home shows."""
        regional = [self.region_slot(region) for region in REGIONS]
        names = {status.name for status in regional}
        others = sorted((s for s in self.slots if s.name not in names), key=lambda s: s.name)
        return regional + others


def overview(now: float | None = None) -> Overview:
    """Everything `status`, the inspector and Home show about the slots, read once."""
    text, problem = config_text_and_problem()
    blocked = home_blocked()  # read once: the warnings and the notices both say it
    return Overview(
        slots=list_slots(now),
        warnings=file_warnings(blocked),
        managed=managed_slot(text),
        config_text=text,
        read_problem=problem,
        now=now,
        away=ondisk.away(now),
        waiting=ondisk.waiting(now),
        blocked=blocked,
    )


def away_text(record: Record) -> str:
    """ "While you were away, the sign-in started at 14:02 completed: signed in as Ada · cn"."""
    started, region = record.started_clock(), record.region.value
    if record.account:  # which account finished, not only its region: `work (cn)`
        region = f"{record.account} ({region})"
    outcome = record.outcome
    if outcome == "success" and record.identity:
        return _(
            "While you were away, the sign-in started at {started} completed: signed in as {who} · {region}"
        ).format(started=started, who=one_line(record.identity, 80), region=region)
    if outcome == "success":
        return _("While you were away, the sign-in started at {started} completed: signed in · {region}").format(
            started=started, region=region
        )
    if outcome == "access_denied":
        return _("While you were away, the sign-in started at {started} was denied in the browser.").format(
            started=started
        )
    if outcome in ("expired", "timeout"):
        return _(
            "While you were away, the sign-in started at {started} expired before it was approved: sign in again."
        ).format(started=started)
    detail = one_line(record.detail, 300) if record.detail else _("it stopped with an error")
    return _("While you were away, the sign-in started at {started} did not complete: {detail}").format(
        started=started, detail=detail
    )


def waiting_text(record: Record) -> str:
    """ "A sign-in in cn is waiting for approval: …", or, when nobody polls it, that it waits to be resumed."""
    command = record.resume_command()
    if record.polled:
        return _("A sign-in in {region} is waiting for approval: `{command}` follows it.").format(
            region=record.region.value, command=command
        )
    return _(
        "A sign-in in {region} started at {started} has nobody polling it (its process ended): "
        "`{command}` resumes it with the same code ({left} left)."
    ).format(
        region=record.region.value,
        started=record.started_clock(),
        command=command,
        left=clock(record.deadline - time.time()),
    )


def away_lines() -> list[str]:
    return [away_text(record) for record in ondisk.away()]
