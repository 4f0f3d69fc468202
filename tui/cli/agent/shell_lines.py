"""What `agent` prints for a shell to `eval`, as ssh-agent prints it: sh (bash, zsh, dash), csh
(tcsh) or fish. The shell is the one asked for (`-s`, `-c`, `--fish`), else the one `$SHELL`
names (a name ending in `csh`: csh; in `fish`: fish; anything else: sh). Pure functions."""

from __future__ import annotations

import shlex

SH, CSH, FISH = "sh", "csh", "fish"


def shell_of(asked: str | None, shell_env: str) -> str:
    if asked in (SH, CSH, FISH):
        return asked
    name = shell_env.rstrip("/").rsplit("/", 1)[-1]
    if name.endswith("csh"):
        return CSH
    if name.endswith("fish"):
        return FISH
    return SH


def fish_quote(value: str) -> str:
    """A fish word: single quotes, where fish reads `\\\\` and `\\'` as escapes."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def set_lines(shell: str, values: dict[str, str]) -> list[str]:
    """Each variable set and exported in `shell`'s syntax."""
    if shell == CSH:
        return [f"setenv {name} {shlex.quote(value)};" for name, value in values.items()]
    if shell == FISH:
        return [f"set -gx {name} {fish_quote(value)};" for name, value in values.items()]
    return [f"{name}={shlex.quote(value)}; export {name};" for name, value in values.items()]


def unset_lines(shell: str, names: list[str]) -> list[str]:
    if shell == CSH:
        return [f"unsetenv {name};" for name in names]
    if shell == FISH:
        return [f"set -e {name};" for name in names]
    return [f"unset {name};" for name in names]
