"""Home's Enter: a sign-in to the highlighted region or account, asked about first where it would
replace a working sign-in, add another account, or store a refresh token on a machine whose tokens
come from the token agent on the person's own machine (the one predicate, `signs_in_here`)."""

from __future__ import annotations

from tui.app.host import Host
from tui.core.agent.client.presence import agent_socket, may_sign_in_here
from tui.core.agent.served import Served
from tui.core.person.overview import overview
from tui.core.signin import ondisk
from tui.core.slots.state import SlotStatus
from tui.core.spec.keys import DEFAULT_ACCOUNT, account_slot
from tui.core.spec.regions import Region

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from textual.app import App


class StartsSignIns:
    """What Home's screen mixes in for Enter: the highlighted row's region and account, what its
    worker found of the agent, and the app it asks (`host`, `app`)."""

    agent_found: Served | None
    host: Host
    app: App[object]
    is_attached: bool

    @property
    def selected_region(self) -> Region:
        raise NotImplementedError  # the screen's

    @property
    def selected_account(self) -> str | None:
        raise NotImplementedError  # the screen's

    def action_start(self) -> None:
        """Sign in to the highlighted region or account. Where this machine's tokens come from the
        token agent on the person's own machine (`presence.may_sign_in_here`, the one predicate),
        ask first: a sign-in here stores the refresh token the agent keeps away."""
        region, account = self.selected_region, self.selected_account
        if may_sign_in_here(region.value, account, self.agent_found):
            self._start(region, account)
            return
        from tui.app.screens.home_questions import elsewhere_question  # lazy: the wizard's cold start

        def anyway(yes: bool | None) -> None:
            if yes and self.is_attached:
                self._start(region, account)

        self.app.push_screen(elsewhere_question(agent_socket() or ""), anyway)

    def _start(self, region: Region, account: str | None) -> None:
        """Where the region has an account already, ask first: another account (a name) or this
        one again; a named account's row: again?"""
        if ondisk.waiting_in(region) is not None:  # the sign-in joins it: the same code, no new request
            self.host.action_sign_in(region.value)
            return
        view = overview()  # now: the person may have waited on this screen
        if account is not None:
            self._again(region, account, view.slot(account_slot(region, account)))
            return
        status = view.region_slot(region)
        named = {a.name for a in view.accounts if a.region is region and a.name != DEFAULT_ACCOUNT}
        if status.refresh_rejected or not (status.usable or named):
            self._again(region, None, status)
            return
        from tui.app.screens.home_questions import ADD, choice_question  # lazy: the wizard's cold start

        def chosen(answer: tuple[str, str | None] | None) -> None:
            if answer is not None:
                self.host.action_sign_in(region.value, account=answer[1] if answer[0] == ADD else None)

        question = choice_question(region, status, view)
        self.app.push_screen(question, chosen)

    def _again(self, region: Region, account: str | None, status: SlotStatus) -> None:
        """Sign in to one account (a region's own when `account` is None): at once when its session
        does not work, else after asking (its refresh rejected: signing in is the default)."""
        from tui.app.screens.home_questions import again_question  # lazy: the wizard's cold start

        def go(yes: bool | None = True) -> None:
            if yes:
                self.host.action_sign_in(region.value, account=account)

        if not status.usable:
            go()
            return
        self.app.push_screen(again_question(region, account, status), go)
