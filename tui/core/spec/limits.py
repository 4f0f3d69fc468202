"""Sizes two modules must agree on, tied together here: the largest answer the program reads
from a server, and the room a refresh proves on disk for storing it before the request is sent.

A refresh token is spent the moment the refresh is sent, so the room proved beforehand must fit
whatever answer would then be stored (docs/security.md, "The room before a refresh"). Both numbers
come from `ANSWER_BODY`: the HTTP layer cuts every body there, and `room_for_answer` reserves
for an answer of exactly that size.
"""

from __future__ import annotations

ANSWER_BODY = 1 << 20  # bytes: the largest body read from a server (a longer one is cut there)
TOKEN_FIELDS = 512  # bytes: the token fields' names, quotes, colons, commas, indentation, expires_at's digits
SLACK = 16384  # bytes: a file another tool grows a little meanwhile (it ignores our locks on some systems)


def room_for_answer(stored_now: int) -> int:
    """Bytes a slot file can need once any answer the program reads is merged into it: what is
    stored now as it will be written again (`stored_now`, the file's content pretty-printed), plus
    every byte of the largest answer (a string of the answer is never longer as written than as
    sent: the writer keeps UTF-8 as is and escapes only what the answer had to escape too), plus
    the fields' punctuation, plus slack."""
    return stored_now + ANSWER_BODY + TOKEN_FIELDS + SLACK
