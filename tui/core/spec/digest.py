"""SHA-256 in hex, from CPython's own implementation where the interpreter has one.

`hashlib` loads OpenSSL when it is imported (libssl, libcrypto and OpenSSL's configuration file):
about a millisecond here, more where the configuration is larger, that Home's first frame would
pay for two short strings, the global region's slot name (spec 4.5) and the fingerprint of a
rejected refresh token. CPython carries a SHA-256 of its own (`_sha2` since 3.12, `_sha256`
before); a build without it (some FIPS builds leave it out) uses hashlib's. Same digests either
way (tests/core/test_digest.py).
"""

from __future__ import annotations

import sys

try:
    if sys.version_info >= (3, 12):
        from _sha2 import sha256 as _sha256  # type: ignore[import-not-found]
    else:
        from _sha256 import sha256 as _sha256  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - an interpreter built without its own hashes
    from hashlib import sha256 as _sha256


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of `data` as 64 lower-case hex digits."""
    digest: str = _sha256(data).hexdigest()
    return digest
