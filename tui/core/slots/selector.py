"""The slot a command names, parsed once at the door into one value: `--account` (with
`--region`), `--slot`, `--region`, `--provider`, or `--base-url` with `--key` and `--oauth-host`.
The command line's parsers (`tui.cli.options`) and the agent's request parser
(`tui.core.agent.wire.protocol`) make it; every layer after them passes it on (the token source,
the agent's request, the agent's choice of slot, the relay) and none reads flags its own way.

Immutable and hashable (the agent keys its single-flight refresh by it). A plain class: on
`token`'s path."""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

NOT_SIGNED_IN, UNKNOWN_SLOT = "not signed in", "unknown slot"  # `tui.core.errors.Problem`'s words
FLAGS = ("account", "slot", "region", "provider", "base_url", "key", "oauth_host")
AGENT_FLAGS = ("account", "region", "slot", "provider")  # what the token agent is asked by (never keys or hosts)


class Selector:
    """Which slot: each flag's value, or None where it was not given. `Selector()` is the default
    slot (the managed provider of config.toml, else cn's own)."""

    __slots__ = FLAGS

    account: str | None
    slot: str | None
    region: str | None
    provider: str | None
    base_url: str | None
    key: str | None
    oauth_host: str | None

    def __init__(
        self,
        account: str | None = None,
        slot: str | None = None,
        region: str | None = None,
        provider: str | None = None,
        base_url: str | None = None,
        key: str | None = None,
        oauth_host: str | None = None,
    ) -> None:
        given = (account, slot, region, provider, base_url, key, oauth_host)
        for name, value in zip(FLAGS, given, strict=True):
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, values: Mapping[str, object]) -> Selector:
        """From the flags' values (an argparse namespace's, a request's): a string is taken, a
        region as its value (`Region.GLOBAL` or "global"), anything else is not given."""
        found: dict[str, str] = {}
        for name in FLAGS:
            value = values.get(name)
            value = getattr(value, "value", value)  # a Region
            if isinstance(value, str):
                found[name] = value
        return cls(**found)

    def failure_kind(self, kind: str) -> str:
        """The kind of a failure met for this selector: a slot named by name (`--slot`) that has
        no file is an unknown slot (usage, exit 2), on this machine and through the agent alike;
        any other kind is itself."""
        return UNKNOWN_SLOT if kind == NOT_SIGNED_IN and self.slot is not None else kind

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Selector does not change: make another")

    def given(self) -> dict[str, str]:
        """The flags given, by name (as `select` and a request take them)."""
        return {name: value for name in FLAGS if (value := getattr(self, name)) is not None}

    @property
    def named(self) -> bool:
        """A slot was named (not the default one)."""
        return any(getattr(self, name) is not None for name in FLAGS)

    @property
    def for_the_agent(self) -> bool:
        """The agent can be asked by it: no key or host (those name this machine's slots)."""
        return self.base_url is None and self.key is None and self.oauth_host is None

    @property
    def region_word(self) -> str | None:
        """The region, as the flags' rules read it (`cn`, `global`), else None."""
        return None if self.region is None else self.region.strip().lower()

    def asked_for(self) -> str:
        """What it names, as a question about a request says it ("region global", "account work
        (global)"; "" for the default slot)."""
        if self.account is not None:
            return f"account {self.account}" + (f" ({self.region})" if self.region else "")
        return " ".join(f"{name} {value}" for name, value in self.given().items())

    def _key(self) -> tuple[str | None, ...]:
        return tuple(getattr(self, name) for name in FLAGS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Selector) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        inside = ", ".join(f"{name}={value!r}" for name, value in self.given().items())
        return f"Selector({inside})"


DEFAULT = Selector()
