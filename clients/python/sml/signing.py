"""The request-signing scheme of API.md §2, ported from packages/core/src/signing.ts.

Pure functions (no clock, no I/O) so that tests/test_signing.py can compare them with the
TypeScript ones on fixed inputs (tests/signing-fixture.json, written by
scripts/signing-fixture.js from @sml/core).
"""
import base64
import hashlib
import hmac
from datetime import datetime, timezone
from typing import Optional, Union

Body = Union[bytes, str, None]


def format_sym_date(date: datetime, nanos: Optional[int] = None) -> str:
    """`yyyy-MM-dd HH:mm:ss;N` in UTC, N = sub-second nanoseconds, unpadded (formatSymDate)."""
    date = date.astimezone(timezone.utc) if date.tzinfo else date.replace(tzinfo=timezone.utc)
    n = (date.microsecond // 1000) * 1_000_000 if nanos is None else nanos
    if not isinstance(n, int) or n < 0 or n >= 1_000_000_000:
        raise ValueError(f"nanos must be an integer in [0, 1e9), got {n}")
    return f"{date.year:04d}-{date.month:02d}-{date.day:02d} {date.hour:02d}:{date.minute:02d}:{date.second:02d};{n}"


def _bytes(body: Body) -> bytes:
    if body is None:
        return b""
    return body.encode("utf-8") if isinstance(body, str) else body


def content_md5(body: Body) -> str:
    """Base64 MD5 of the exact body bytes; '' when there is no body (an empty body is none)."""
    raw = _bytes(body)
    return base64.b64encode(hashlib.md5(raw).digest()).decode("ascii") if raw else ""


def string_to_sign(method: str, content_md5: str, secret: str, sym_date: str, customer_id: str,
                   resource: str, body: Body = None, query: Optional[str] = None) -> bytes:
    """The HMAC-signed message: one line per part, always ending with a newline (stringToSign)."""
    lines = [method.upper().encode(), content_md5.encode(), secret.encode(), sym_date.encode(), customer_id.encode()]
    raw = _bytes(body)
    if raw:
        lines.append(raw)
    lines.append(resource.encode("utf-8"))
    if query:
        lines.append(query.encode("utf-8"))
    return b"\n".join(lines) + b"\n"


def signature(secret_base64: str, message: Union[bytes, str]) -> str:
    """base64(HMAC-SHA256(key = base64decode(secret), message))."""
    msg = message.encode("utf-8") if isinstance(message, str) else message
    return base64.b64encode(hmac.new(base64.b64decode(secret_base64), msg, hashlib.sha256).digest()).decode("ascii")
