"""SHA-256 without OpenSSL (`tui.core.spec.digest`): the digests are hashlib's, for any input, on the
interpreter's own implementation and on hashlib's where a build has none; the slot names and
fingerprints made from them are the ones the official client and earlier versions made."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from hypothesis import example, given, strategies as st

from tui.core.credentials.rejections import fingerprint
from tui.core.spec.digest import sha256_hex
from tui.core.spec.keys import SCOPED_PREFIX, derive_scoped_key


@given(st.binary(max_size=4096))
@example(b"")
@example(b"\x00" * 64)  # exactly one block
@example("凭据".encode())
def test_the_digest_is_hashlibs(data):
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_the_scoped_key_and_the_fingerprint_are_unchanged():
    text = '{"oauthHost":"https://auth.example","baseUrl":"https://api.example/coding/v1"}'
    assert derive_scoped_key("https://auth.example/", "https://api.example/coding/v1/") == (
        SCOPED_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:16]
    )
    assert fingerprint("rt-\udcff") == hashlib.sha256("rt-\udcff".encode("utf-8", "surrogatepass")).hexdigest()


def test_an_interpreter_without_its_own_sha256_uses_hashlibs():
    """As a build without CPython's hash modules (some FIPS builds): the import fails, hashlib's
    SHA-256 is used, and the digest is the same."""
    code = (
        "import sys; sys.modules['_sha2'] = sys.modules['_sha256'] = None\n"
        "from tui.core.spec.digest import sha256_hex, _sha256\n"
        "import hashlib\n"
        "assert _sha256 is hashlib.sha256, _sha256\n"
        "print(sha256_hex(b'abc'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == hashlib.sha256(b"abc").hexdigest()


def test_no_openssl_is_loaded_for_a_digest():
    code = "import sys; from tui.core.spec.digest import sha256_hex; sha256_hex(b'x'); print('_hashlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
