"""Which region an account name is in, by the files on disk: `token --account NAME` (and `exec`,
`refresh`, `switch`) find the slot with a look at two names, never a listing, and load nothing
the plain `token` does not (no dataclasses, no slot states): plain `os`."""

from __future__ import annotations

import os

from tui.core.errors import AuthError, Problem
from tui.core.spec import paths
from tui.core.spec.keys import account_slot
from tui.core.spec.settings import REGIONS
from tui.core.text.phrase import N_, Phrase


def regions_with(name: str) -> list[str]:
    """The regions ("cn", "global") where account `name` has a file (of any kind: a broken one is
    still there)."""
    return [r for r in REGIONS if os.path.lexists(paths.credentials_file(account_slot(r, name)))]


def account_region(where: list[str], region: str | None) -> tuple[str | None, str | None]:
    """The one rule that picks an account's region, for this machine's files (`find`) and an
    agent's listing (`listing.selected`) alike: (the region among `where`, the regions that have the
    account, or None; the `Problem` when there is none): `region` when it is one of them; else the
    only one; none is an unknown account, several with none said an ambiguous one."""
    if region is not None:
        where = [region] if region in where else []
    if len(where) == 1:
        return where[0], None
    return None, Problem.AMBIGUOUS_ACCOUNT if where else Problem.UNKNOWN_ACCOUNT


def find(name: str, region: str | None = None) -> str:
    """The region ("cn", "global") of the existing account `name` (in `region` when given).
    AuthError when there is none, or when both regions have one and none was said."""
    found, problem = account_region(regions_with(name), region)
    if found is not None:
        return found
    if problem == Problem.UNKNOWN_ACCOUNT:
        in_region = f" in {region}" if region is not None else ""
        flag = f" --region {region}" if region is not None else ""
        raise AuthError(
            f"No account named {name}{in_region}",
            Phrase(N_("Sign in to it first: assistant-auth login --account {name}{flag}"), name=name, flag=flag),
            kind=Problem.UNKNOWN_ACCOUNT,
        )
    raise AuthError(
        f"Both regions have an account named {name}",
        Phrase(N_("Say which: --region cn or --region global")),
        kind=Problem.AMBIGUOUS_ACCOUNT,
    )
