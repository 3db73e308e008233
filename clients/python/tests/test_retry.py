"""A 503 is retried after Retry-After, a learn keeping one Idempotency-Key for all its tries;
a local stand-in server (no SML system needed) answers 503 first."""
import pytest

from sml import SmlClient, UnavailableError
from standin import StandIn

FRAME = {"attributeNames": ["x"], "attributeTypes": ["C"], "data": [["1"]]}


def busy_first(failures):
    return lambda n, headers, body: (503, {"Retry-After": "0"}) if n <= failures else (200, {})


def test_503_is_retried_with_one_idempotency_key():
    with StandIn(busy_first(2)) as server:
        res = SmlClient(server.url, "c1", "AAAAAAAAAAAAAAAAAAAAAA==").learn("p", FRAME)
    assert res.status == 200
    assert len(server.seen) == 3
    keys = {s["headers"]["idempotency-key"] for s in server.seen}
    assert len(keys) == 1 and keys != {""}
    # Each try is signed afresh (a new Sym-date), or the replay cache would refuse it.
    assert len({s["headers"]["sym-date"] for s in server.seen}) == 3


def test_503_after_the_last_retry_is_an_unavailable_error():
    with StandIn(busy_first(10)) as server:
        with pytest.raises(UnavailableError) as e:
            SmlClient(server.url, "c1", "AAAAAAAAAAAAAAAAAAAAAA==", retries=1).learn("p", FRAME)
    assert e.value.status == 503 and e.value.message == "busy"
    assert len(server.seen) == 2
