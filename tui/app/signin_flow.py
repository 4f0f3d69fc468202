"""The sign-in's way through the app: start one (or join the region's waiting one), show how it
ended, keep polling the same code. `AssistantAuthApp` has it; the screens ask it through `Host`."""

from __future__ import annotations

from textual.app import App
from textual.screen import ModalScreen

from tui.core.signin import ondisk
from tui.core.spec.keys import DEFAULT_ACCOUNT
from tui.core.spec.regions import Region
from tui.core.text.i18n import _


class SignInFlow(App):
    region: Region
    from_login: bool
    farewell: list[str]
    demo: object | None

    def action_sign_in(self, region: str | None = None, replace: bool = False, account: str | None = None) -> None:
        """A new sign-in in `region` (default: the app's), to the named `account` (default: the
        region's own slot), over the current screen or instead of it."""
        from tui.app.screens.sign_in import (  # lazy: the wizard's cold start (make bench)
            SignInScreen,  # loaded when first opened (cold start)
        )

        chosen = Region(region) if region else self.region
        waiting = ondisk.waiting_in(chosen)
        if account is not None and waiting is not None and waiting.account != account:
            # one attempt per region: joining it would save its tokens to the account it was started for
            self.notify(
                _(
                    "A sign-in to account {account} ({region}) is waiting for approval: approve it, or abandon "
                    "it with n on Home, then sign in to {wanted}."
                ).format(account=waiting.account or DEFAULT_ACCOUNT, region=chosen.value, wanted=account),
                title=_("Not started"),
                severity="warning",
                timeout=8,
                markup=False,
            )
            return
        screen = SignInScreen(chosen, account=account)
        self.switch_screen(screen) if replace else self.push_screen(screen)

    def show_outcome(self, attempt) -> None:
        """A finished sign-in replaces its screen: Done on success, else what happened. A dialog,
        the help or the QR code open above it is closed first: it was about the sign-in."""
        from tui.app.screens.done import (  # lazy: the wizard's cold start (make bench)
            DoneScreen,  # loaded when first opened (cold start)
        )
        from tui.app.screens.outcome import OutcomeScreen  # lazy: the wizard's cold start (make bench)

        while isinstance(self.screen, ModalScreen) and len(self.screen_stack) > 1:
            self.pop_screen()
        if attempt.outcome.success and self.from_login and self.demo is None:
            from tui.app.screens.done import farewell  # lazy: the wizard's cold start (make bench)

            self.farewell = farewell(attempt.region, note=attempt.config_note, account=attempt.account)
            self.exit(return_code=0)
            return
        if attempt.outcome.success:
            self.switch_screen(DoneScreen(attempt.region, note=attempt.config_note, account=attempt.account))
        else:
            self.switch_screen(OutcomeScreen(attempt.region, attempt.outcome, attempt))

    def keep_polling(self, attempt) -> None:
        """Back to the code screen, polling again with the same device code within its deadline."""
        from tui.app.screens.sign_in import (  # lazy: the wizard's cold start (make bench)
            SignInScreen,  # loaded when first opened (cold start)
        )

        self.switch_screen(SignInScreen(attempt.region, attempt))
