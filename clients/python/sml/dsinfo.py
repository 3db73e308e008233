"""Encrypted DSInfo bodies (API.md §2.4), ported from packages/core/src/dsinfo.ts.

`v1` is the compat format (AES-128-CBC/PKCS#7 with a fixed IV, so unauthenticated and equal
plaintexts give equal ciphertexts); `v2` is `v2:` + base64(nonce[12] ‖ ciphertext ‖ tag[16])
with AES-128-GCM and a random nonce, which the clients send. The key is the customer's
secret, base64-decoded (16 bytes).

Python's standard library has no AES: these functions need the `cryptography` package
(Debian `python3-cryptography`, `pip install cryptography`), imported only when they are
called, so the rest of the client stays standard-library only.
"""
import base64
import json
import os
from typing import Any

# Fixed by the compat clients (V1_IV in dsinfo.ts).
V1_IV = base64.b64decode("LzM5QUtXZXWHm7HJ4wAePg==")
V2_PREFIX = "v2:"
NONCE_BYTES = 12
TAG_BYTES = 16
FORMATS = ("v1", "v2")


def _cryptography() -> Any:
    try:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives import ciphers, padding
        from cryptography.hazmat.primitives.ciphers import aead
    except ImportError as e:
        raise ImportError("DSInfo encryption needs the 'cryptography' package (Debian: apt-get install "
                          "python3-cryptography; pip: pip install cryptography)") from e
    return ciphers, padding, aead, InvalidTag


def _key(secret: str) -> bytes:
    key = base64.b64decode(secret)
    if len(key) != 16:
        raise ValueError("a customer secret is base64 of 16 bytes")
    return key


def _plaintext(obj: Any) -> bytes:
    # JSON.stringify's compact form, so that v1 (deterministic) gives the TypeScript bytes.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def encrypt_dsinfo(obj: Any, secret: str, format: str = "v2") -> str:
    """The body to send for a DSInfo: base64 text (v1) or `v2:` + base64 text (v2)."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    ciphers, padding, aead, _ = _cryptography()
    key, plaintext = _key(secret), _plaintext(obj)
    if format == "v1":
        padder = padding.PKCS7(128).padder()
        padded = padder.update(plaintext) + padder.finalize()
        enc = ciphers.Cipher(ciphers.algorithms.AES(key), ciphers.modes.CBC(V1_IV)).encryptor()
        return base64.b64encode(enc.update(padded) + enc.finalize()).decode("ascii")
    nonce = os.urandom(NONCE_BYTES)
    # AESGCM appends the 16-byte tag to the ciphertext: nonce ‖ ciphertext ‖ tag as dsinfo.ts.
    return V2_PREFIX + base64.b64encode(nonce + aead.AESGCM(key).encrypt(nonce, plaintext, None)).decode("ascii")


def _strict_base64(text: str) -> bytes:
    compact = "".join(text.split())  # line breaks allowed, as openssl writes them
    if not compact:
        raise ValueError("not base64")
    return base64.b64decode(compact, validate=True)


def decrypt_dsinfo(body: str, secret: str) -> Any:
    """The DSInfo a body carries (raw payload or the same as a JSON string literal), v1 or v2.

    Any failure (encoding, padding, tag, key, JSON) is one ValueError, as the gateway's one
    uniform 'Invalid encrypted payload'.
    """
    ciphers, padding, aead, invalid_tag = _cryptography()
    try:
        trimmed = body.strip()
        payload = json.loads(trimmed) if trimmed.startswith('"') else trimmed
        if not isinstance(payload, str):
            raise ValueError("JSON body is not a string literal")
        key = _key(secret)
        if payload.startswith(V2_PREFIX):
            data = _strict_base64(payload[len(V2_PREFIX):])
            if len(data) < NONCE_BYTES + TAG_BYTES:
                raise ValueError("v2 payload shorter than nonce + tag")
            plaintext = aead.AESGCM(key).decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], None)
        else:
            dec = ciphers.Cipher(ciphers.algorithms.AES(key), ciphers.modes.CBC(V1_IV)).decryptor()
            unpadder = padding.PKCS7(128).unpadder()
            plaintext = unpadder.update(dec.update(_strict_base64(payload)) + dec.finalize()) + unpadder.finalize()
        return json.loads(plaintext.decode("utf-8"))
    except (ValueError, invalid_tag) as e:  # binascii.Error and UnicodeDecodeError are ValueErrors
        raise ValueError("Invalid encrypted payload") from e
