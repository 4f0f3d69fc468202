"""The token service's spacing and its refresh decide on one reading of the clock: a request that
the spacing lets through because the token still lived long enough, but that the token path then
finds short (the second ticked over between the two looks), is refused, never refreshed. Found
under load: an agent client asking for 3598 s of a 3600 s token as fast as it could caused a
second refresh. Against the local authorization server."""

import time

from tests.cli.test_cli import valid
from tests.conftest import write_creds
from tui.core.credentials import refresh
from tui.core.credentials.issued import Granted, Refused
from tui.core.slots.selector import DEFAULT
from tui.core.tokens.service import TokenService
from tui.demo.server import TOKEN_PATH


async def refreshed_once(home, server) -> TokenService:
    """A service that has just refreshed the default slot for 3598 s of a 3600 s token."""
    server.access_ttl = 3600
    write_creds(home, valid(server))  # 10 minutes left: 3598 s needs a refresh
    service = TokenService()
    first = await service.token(DEFAULT, 3598)
    assert isinstance(first, Granted) and server.count(TOKEN_PATH, "refresh_token") == 1
    return service


async def test_a_token_that_turns_short_between_the_two_looks_is_refused_not_refreshed(home, server, monkeypatch):
    service = await refreshed_once(home, server)

    # the spacing looks first and sees the fresh token meet 3598 s; by the time the token path
    # looks, the clock has moved past it (made certain here, where a busy machine makes it likely)
    monkeypatch.setattr(refresh, "fresh", lambda creds, ttl: False)
    again = await service.token(DEFAULT, 3598)

    assert isinstance(again, Refused), again
    assert again.retry_after is not None and 0 < again.retry_after <= 1800
    assert "cannot be met" in again.message
    assert server.count(TOKEN_PATH, "refresh_token") == 1


async def test_a_token_that_meets_the_lifetime_when_the_path_looks_is_served_within_the_spacing(home, server):
    service = await refreshed_once(home, server)
    served = await service.token(DEFAULT, 3000)  # met by the token the refresh got: no refusal, no refresh
    assert isinstance(served, Granted)
    assert server.count(TOKEN_PATH, "refresh_token") == 1


async def test_a_token_below_the_specs_thirty_seconds_is_refreshed_within_the_spacing(home, server):
    service = await refreshed_once(home, server)
    creds = write_creds(home, {**valid(server), "expires_at": int(time.time()) + 10})  # nearly gone
    assert creds.exists()
    assert isinstance(await service.token(DEFAULT, 3598), Granted)
    assert server.count(TOKEN_PATH, "refresh_token") == 2
