"""The Python signing equals @sml/core's on fixed inputs (signing-fixture.json, written by
scripts/signing-fixture.js from the TypeScript functions the gateway verifies with)."""
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from sml.signing import content_md5, format_sym_date, signature, string_to_sign

FIXTURE = json.loads((Path(__file__).parent / "signing-fixture.json").read_text("utf-8"))


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["method"])
def test_signature_equals_typescript(case):
    secret = FIXTURE["secret"]
    date = datetime.fromtimestamp(case["epochMs"] / 1000, tz=timezone.utc)
    sym_date = format_sym_date(date, case["nanos"])
    assert sym_date == case["symDate"]
    md5 = content_md5(case.get("body"))
    assert md5 == case["contentMd5"]
    message = string_to_sign(case["method"], md5, secret, sym_date, case["customerId"], case["resource"],
                             case.get("body"), case.get("query"))
    assert message.decode("utf-8") == case["stringToSign"]
    assert signature(secret, message) == case["signature"]


def test_nanos_out_of_range_is_refused():
    with pytest.raises(ValueError):
        format_sym_date(datetime(2026, 1, 1, tzinfo=timezone.utc), 1_000_000_000)
