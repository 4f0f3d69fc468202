"""Which slot the relay fills on a server, so that the official client there sends the token to
the API of the token's region (#52): the token's region comes from the agent's listing of the
slot asked for; what the official client reads is the slot `managed:assistant-code` names here.

When that slot is of the token's region, the relay fills it. When it is of the other region and
holds nothing of this machine's own (no file, or a token a relay wrote), the relay fills the
token's region's own slot here and points the managed provider at it once written (said). When
it holds a sign-in of this machine, nothing is moved off it: refused in one line. A slot named by
`--slot` or `--provider` is filled only when it is of the token's region. Pure: `target`;
the edge that reads this machine is `here`."""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.agent.client.relay import Verdict, judge
from tui.core.credentials.slot import read_text
from tui.core.slots.choice import select, storage_name_of
from tui.core.spec import paths
from tui.core.spec.keys import account_of_slot, named_account_label, region_of_slot, region_storage_name
from tui.core.spec.regions import Region
from tui.core.text.phrase import N_, Phrase

OTHER_REGION = N_(
    "The relay does not write a {region} token to slot {slot}: that slot is the {other} region's, and the "
    "official client here would send the token to the {other} API."
)
OWN_SIGN_IN = N_(
    "The relay does not feed a {region} token here: the official client here uses this machine's own sign-in "
    "in {other} ({slot}), and the relay never moves it off it. Relay a {other} account, or sign out of it here "
    "first ({logout})."
)


@dataclass(frozen=True)
class Target:
    """The slot the relay writes, and the region the managed provider here is pointed at once
    it is written (None: the official client here already reads that slot)."""

    slot: str
    point: Region | None = None


@dataclass(frozen=True)
class Here:
    """What the rule needs of this machine: the slot the official client reads (the managed
    provider's, else the default), and what each slot file is to the relay."""

    read_by_official: str
    verdicts: dict[str, Verdict]

    def verdict(self, slot: str) -> Verdict:
        return self.verdicts.get(slot, Verdict.EMPTY)


class Refused(Exception):
    """Nothing this relay can fill is read by the official client for the token's region."""

    def __init__(self, phrase: Phrase) -> None:
        super().__init__(str(phrase))
        self.phrase = phrase


def target(region: Region | None, here: Here, named_slot: str | None = None) -> Target:
    """Where the relay writes a token of `region` (None: the agent did not say; as before, the
    slot the official client reads). `named_slot`: the slot `--slot`/`--provider` names here."""
    if named_slot is not None:
        own = region_of_slot(named_slot)
        if region is not None and own is not None and own is not region:
            raise Refused(Phrase(OTHER_REGION, region=region.value, slot=_label(named_slot), other=own.value))
        return Target(named_slot)
    read = here.read_by_official
    own = region_of_slot(read)
    if region is None or own is None or own is region:
        return Target(read)
    if here.verdict(read) is Verdict.SIGNED_IN:
        logout = "assistant-auth logout " + _flags(read, own)
        raise Refused(Phrase(OWN_SIGN_IN, region=region.value, other=own.value, slot=_label(read), logout=logout))
    return Target(region_storage_name(region), point=region)


def here(slots: tuple[str, ...]) -> Here:
    """This machine, for `target`: the slot the official client reads, and the verdict of it
    and of `slots`' files (read now; the write judges each again under its locks)."""
    read = storage_name_of(select())
    verdicts = {}
    for slot in {read, *slots}:
        try:
            verdicts[slot] = judge(read_text(paths.credentials_file(slot)))
        except FileNotFoundError:
            verdicts[slot] = Verdict.EMPTY
        except (OSError, ValueError):
            verdicts[slot] = Verdict.DAMAGED
    return Here(read, verdicts)


def _flags(slot: str, region: Region) -> str:
    """The flags that name `slot` of `region` on this machine's command line."""
    named = account_of_slot(slot)
    if named is not None and not named.is_default:
        return f"--account {named.name} --region {region.value}"
    return f"--region {region.value}"


def _label(slot: str) -> str:
    return named_account_label(slot) or slot
