"""The Python DSInfo encryption equals @sml/core's (dsinfo-fixture.json, written by
scripts/dsinfo-fixture.js from the functions the gateway decrypts with); offline."""
import json
import sys
from pathlib import Path

import pytest

from sml.dsinfo import decrypt_dsinfo, encrypt_dsinfo

FIXTURE = json.loads((Path(__file__).parent / "dsinfo-fixture.json").read_text("utf-8"))
SECRET = FIXTURE["secret"]
CASES = FIXTURE["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["dsinfo"]["type"])
def test_v1_encrypts_to_the_typescript_text(case):
    # v1's IV is fixed: the same DSInfo and secret give the same bytes in both languages.
    assert encrypt_dsinfo(case["dsinfo"], SECRET, format="v1") == case["v1"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["dsinfo"]["type"])
@pytest.mark.parametrize("fmt", ["v1", "v2"])
def test_decrypts_what_typescript_encrypted(case, fmt):
    assert decrypt_dsinfo(case[fmt], SECRET) == case["dsinfo"]
    # The gateway also takes the payload as a JSON string literal.
    assert decrypt_dsinfo(json.dumps(case[fmt]), SECRET) == case["dsinfo"]


def test_v2_is_the_default_and_random():
    obj = CASES[0]["dsinfo"]
    a, b = encrypt_dsinfo(obj, SECRET), encrypt_dsinfo(obj, SECRET)
    assert a.startswith("v2:") and b.startswith("v2:") and a != b
    assert decrypt_dsinfo(a, SECRET) == obj == decrypt_dsinfo(b, SECRET)


@pytest.mark.parametrize("fmt", ["v1", "v2"])
def test_a_wrong_key_or_a_changed_byte_is_one_uniform_error(fmt):
    body = CASES[1][fmt]
    other = "AAAAAAAAAAAAAAAAAAAAAA=="
    tampered = body[:-6] + ("A" if body[-6] != "A" else "B") + body[-5:]
    for text, secret in [(body, other), (tampered, SECRET), ("not base64!", SECRET)]:
        with pytest.raises(ValueError, match="^Invalid encrypted payload$"):
            decrypt_dsinfo(text, secret)


def test_without_cryptography_the_error_names_the_package(monkeypatch):
    for name in [m for m in sys.modules if m == "cryptography" or m.startswith("cryptography.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "cryptography", None)  # import cryptography → ImportError
    with pytest.raises(ImportError, match="python3-cryptography"):
        encrypt_dsinfo({"type": "localfile"}, SECRET)
