"""The language a person reads: English (the source, and the fallback) or Simplified Chinese.

The choice follows gettext's reading of the environment: `ASSISTANT_LANG` (en | zh-CN) first when
set; else English on the Linux text console (`TERM=linux`, which has no font for Chinese); else `LANGUAGE` (a list, tried in order; ignored when the locale is C/POSIX), `LC_ALL`,
`LC_MESSAGES`, `LANG`. A Chinese locale written for Simplified Chinese (zh_CN, zh_SG, zh_Hans,
zh) gives Simplified Chinese; anything else English. It is read at each call, so a test (or a
program embedding the core) can change it.

Strings are marked at their one home: `_("…")` where they are shown; `N_("…")`
(`tui.core.text.phrase`) where they are defined ahead of time (bindings, tables, a `Phrase` made
before it is known who reads it), translated by whoever shows them. Placeholders are
filled after translation (`_("Signed in as {who}").format(who=…)`), never a sentence assembled
from translated pieces. Machine output (JSON, exit codes, `token`'s stdout, files) is never
translated, and neither is text from a server or a file.

The catalogs are gettext's: `tui/locale/<lang>/LC_MESSAGES/assistant-auth.po` in the repository,
compiled to `.mo` by the project's build (so a wheel ships them); in a checkout that was never
built, the `.po` is compiled in memory on first use.
"""

from __future__ import annotations

import contextvars
import os

TYPE_CHECKING = False  # not `from typing import`: English (the source) needs none of this
if TYPE_CHECKING:  # pragma: no cover
    import gettext
    from collections.abc import Callable

DOMAIN = "assistant-auth"
ENGLISH, CHINESE = "en", "zh-CN"
ENV = "ASSISTANT_LANG"
_SIMPLIFIED = ("zh_cn", "zh_sg", "zh_hans", "zh")
_CATALOG_DIR = {CHINESE: "zh_CN"}
_loaded: dict[str, gettext.NullTranslations] = {}
# set while data for machines is made (doctor's findings end up in --json and bug reports): English
_forced: contextvars.ContextVar[str | None] = contextvars.ContextVar("assistant_auth_language", default=None)


def _spoken(value: str) -> str | None:
    """The language a locale name asks for, when it is one of ours: "zh_CN.UTF-8" -> zh-CN,
    "en_GB" -> en, "C" -> en; None for another language (gettext would look further)."""
    name = value.strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    if not name:
        return None
    if name in _SIMPLIFIED or name.startswith("zh_hans"):
        return CHINESE
    if name in ("c", "posix") or name == "en" or name.startswith("en_"):
        return ENGLISH
    return None


def language() -> str:
    """ "en" or "zh-CN", from the environment as gettext reads it (`ASSISTANT_LANG` first)."""
    forced = _forced.get()
    if forced is not None:
        return forced
    explicit = _spoken(os.environ.get(ENV, ""))
    if explicit is not None:
        return explicit
    if os.environ.get("TERM") == "linux":  # the Linux text console has no CJK font: every character a ◆
        return ENGLISH
    locale_name = next((os.environ[v] for v in ("LC_ALL", "LC_MESSAGES", "LANG") if os.environ.get(v)), "")
    if locale_name.split(".")[0].upper() in ("C", "POSIX"):
        return ENGLISH  # the C locale: gettext ignores LANGUAGE then
    for candidate in [*os.environ.get("LANGUAGE", "").split(":"), locale_name]:
        found = _spoken(candidate)
        if found is not None:
            return found
    return ENGLISH


class in_english:  # noqa: N801 - used as a function: `with in_english():`
    """English (the source) for what is made inside, in this context only (a face drawing in
    another task or thread keeps the reader's language): for records that scripts read. A class,
    not `contextlib.contextmanager`: a sentence said in English loads no contextlib."""

    def __enter__(self) -> None:
        self._token = _forced.set(ENGLISH)

    def __exit__(self, *_exc: object) -> None:
        _forced.reset(self._token)


def in_the_readers_language() -> Callable[[str], str]:
    """`_` bound to the reader's language now: it keeps translating into it inside `in_english`."""
    lang = language()
    if lang == ENGLISH:
        return lambda message: message
    return catalog(lang).gettext


def translated() -> bool:
    """The reader reads another language than English: where the spec fixes an English message,
    a face then says it in a sentence of that language first and keeps the spec's words beside it."""
    return language() != ENGLISH


def catalog(lang: str) -> gettext.NullTranslations:
    """The translations of `lang`; without a readable catalog, none (English is shown)."""
    if lang not in _loaded:
        _loaded[lang] = _read_catalog(_CATALOG_DIR.get(lang, ""))
    return _loaded[lang]


def _read_catalog(directory: str) -> gettext.NullTranslations:
    import gettext  # lazy: English, the source, never needs a catalog (start-up and the token path)
    import pathlib  # lazy: 11 ms that a sentence said in English never needs (the agent's fall-over, make bench)

    here = pathlib.Path(__file__).resolve().parents[2] / "locale" / directory / "LC_MESSAGES"
    compiled, source = here / f"{DOMAIN}.mo", here / f"{DOMAIN}.po"
    try:
        if (
            directory
            and compiled.exists()
            and (not source.exists() or compiled.stat().st_mtime >= source.stat().st_mtime)
        ):
            with compiled.open("rb") as handle:
                return gettext.GNUTranslations(handle)
        if directory and source.exists():  # a checkout that was never built
            import io  # lazy: only a checkout that was never built compiles

            from tui.core.text.msgfmt import compile_po  # lazy: only a checkout that was never built compiles

            return gettext.GNUTranslations(io.BytesIO(compile_po(source.read_text(encoding="utf-8"))))
    except (OSError, ValueError):
        pass  # an unreadable catalog: English, as for a language without one
    return gettext.NullTranslations()


def _(message: str) -> str:
    """`message` in the reader's language (itself when untranslated)."""
    lang = language()
    return message if lang == ENGLISH else catalog(lang).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    lang = language()
    if lang == ENGLISH:
        return singular if count == 1 else plural
    return catalog(lang).ngettext(singular, plural, count)
