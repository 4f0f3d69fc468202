"""One parse of each piece of Textual CSS per test process, shared by every app a test starts.

Each `App` has a stylesheet of its own, and each stylesheet parses the CSS of every widget class
and screen it meets, again: hundreds of apps per worker parsed the same few kilobytes each time
(a tenth of an app test's CPU, profiled). Parsing is a pure function of the text, where it came
from, its scope and place in the cascade, and the theme's variables; Textual already keeps the
rule sets it parsed for a stylesheet's later parses (a cache of 64 per stylesheet) and never
changes them. Here that cache is one per process, keyed by the same values and the variables.
A program runs one app per process: nothing of the product changes, and a CSS error is still
raised, by the first app that meets it, every time (errors are never kept)."""

from __future__ import annotations

from typing import Any

PARSED: dict[tuple[Any, ...], Any] = {}


def share_parsed_css() -> None:
    from textual.css.stylesheet import Stylesheet

    if getattr(Stylesheet._parse_rules, "shared", False):
        return
    parse = Stylesheet._parse_rules

    def parse_once(
        self: Stylesheet,
        css: str,
        read_from: Any,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> Any:
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(sorted(self._variables.items())))
        rules = PARSED.get(key)
        if rules is None:
            rules = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
            if not any(rule.errors for rule in rules):  # an error is met again by the next app
                PARSED[key] = rules
        return rules

    parse_once.shared = True  # type: ignore[attr-defined] - marks the one installed
    Stylesheet._parse_rules = parse_once  # type: ignore[method-assign] - a test process's own cache
