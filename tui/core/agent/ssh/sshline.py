"""OpenSSH's command line as `ssh` reads it: options, the host, more options after it, then `--`
or the first other word starts the command. `assistant-auth ssh` reads its arguments with it, and
the agent reads the `ssh` process at the other end of a forwarded connection with it (which host
a request comes from). Pure."""

from __future__ import annotations

WITH_VALUE = set("BbcDEeFIiJLlmOoPpQRSWw")  # ssh's options that take an argument (ssh(1))


class Usage(ValueError):
    """A command line ssh would not read (said with the usage line)."""


def split(
    args: list[str], ours_switches: tuple[str, ...] = (), ours_with_value: tuple[str, ...] = ()
) -> tuple[dict[str, str], list[str], str | None, list[str]]:
    """(the caller's flags -> their values ("" for a switch), ssh's options, the host, the remote
    command), as OpenSSH reads its command line: options, the host, more options after it, then
    `--` or the first other word starts the command. ssh has no long options, so a `--word` among
    the options is one of the caller's (`ours_switches`, `ours_with_value` as `--flag NAME` or
    `--flag=NAME`), anywhere among them. Usage for any other `--word` (or a value missing)."""
    ours: dict[str, str] = {}
    options: list[str] = []
    host: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":  # the end of the options: the host (when not yet given), then the command
            i += 1
            if host is None and i < len(args):
                host, i = args[i], i + 1
            break
        if not arg.startswith("-") or arg == "-":
            if host is not None:
                break  # the command's first word
            host = arg
            i += 1
            continue
        if arg.startswith("--"):
            flag, eq, value = arg.partition("=")
            if flag in ours_with_value:
                if not eq:
                    if i + 1 >= len(args):
                        raise Usage(arg)
                    i, value = i + 1, args[i + 1]
                ours[flag] = value
            elif arg in ours_switches:
                ours[arg] = ""
            else:
                raise Usage(arg)
            i += 1
            continue
        i = _option(args, i, options)
    return ours, options, host, args[i:]


def _option(args: list[str], i: int, options: list[str]) -> int:
    """Take the ssh option at `i` (with its value, `-p 22` or `-p22`) into `options`; the next index."""
    arg = args[i]
    options.append(arg)
    letters = arg[1:]
    for position, letter in enumerate(letters):
        if letter in WITH_VALUE:
            if position == len(letters) - 1 and i + 1 < len(args):  # `-p 22`: the value is the next word
                i += 1
                options.append(args[i])
            break  # `-p22`: the rest of the word is the value
    return i + 1


def without_flag(options: list[str], flag: str) -> tuple[list[str], bool]:
    """`options` without the boolean flag `flag` (`-N`, also inside `-fN`), and whether it was there."""
    kept: list[str] = []
    found = False
    i = 0
    while i < len(options):
        word = options[i]
        letters = word[1:]
        cut = next((n for n, letter in enumerate(letters) if letter in WITH_VALUE), len(letters))
        value_next = cut == len(letters) - 1 and letters[cut:] in WITH_VALUE and i + 1 < len(options)
        flags = letters[:cut]
        if flag in flags:
            found = True
            word = "-" + flags.replace(flag, "") + letters[cut:]
        if word != "-":
            kept.append(word)
        if value_next:
            i += 1
            kept.append(options[i])
        i += 1
    return kept, found
