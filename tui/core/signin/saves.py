"""The attempt's SAVING phase: approved tokens kept until they are stored (`Approval`), and the
tokens of an earlier approval that could not be stored then (`kept`), stored without a new code."""

from __future__ import annotations

from typing import Any

from tui.core.config.kept import kept_note
from tui.core.config.read import exposure
from tui.core.errors import AuthError
from tui.core.signin import kept
from tui.core.signin.moves import Moves
from tui.core.signin.saving import Approval
from tui.core.signin.state import Outcome, Phase, failed, outcome_for
from tui.core.text.phrase import said


class Saving(Moves):
    """What `SignIn` does once tokens are approved."""

    LOCK_WAIT_DETACHED = 600.0  # seconds approved tokens wait for the slot's locks without a terminal
    approval: Approval | None = None  # approved tokens, until they are saved

    def _waiting_for_lock(self, text: str) -> None:
        self.lock_wait = text
        self._changed("saving")

    async def _save(self, tokens: dict[str, Any]) -> str:
        """POLLING (or NEW, for kept tokens) -> SAVING: the approved tokens are kept until saved
        (`Approval`); without a terminal, the wait for the slot's locks is bounded."""
        if self.phase is not Phase.SAVING:
            self._to(Phase.SAVING)
        if self.approval is None:
            self.approval = Approval(tokens, self.region, self._waiting_for_lock, self.account)
        if self.detached:
            self.approval.bind(self.LOCK_WAIT_DETACHED)
        name = await self.approval.save()
        copy, self.approval = self.approval.config_copy, None
        # config.toml kept before its api_key was emptied, and others that can read or write it: said
        notes = [said(kept_note(copy)) if copy else None, exposure()]
        self.config_note = " ".join(note for note in notes if note) or None
        return name

    async def _save_kept(self, tokens: dict[str, Any]) -> Outcome:
        """NEW -> SAVING -> ENDED: the tokens of an earlier approval are stored, no code asked."""
        try:
            await self._save(tokens)
        except AuthError as exc:
            return self._finish(failed(exc), record_it=False)
        kept.forget(self.storage_name)
        return self._finish(outcome_for("success"), record_it=False)
