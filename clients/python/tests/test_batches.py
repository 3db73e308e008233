"""learn_batches against a local stand-in server: bounded batches, a bounded number read ahead
and in flight (backpressure), 503 + Retry-After honoured, one Idempotency-Key per batch."""
import threading
import time

import pandas as pd

from sml import SmlClient
from sml.frames import iter_frames
from standin import StandIn

SECRET = "AAAAAAAAAAAAAAAAAAAAAA=="


class Source:
    """A generator of 10-row DataFrames that counts how many it has handed out."""

    def __init__(self, chunks):
        self.chunks, self.produced = chunks, 0

    def __iter__(self):
        for i in range(self.chunks):
            self.produced += 1
            yield pd.DataFrame({"x": range(i * 10, i * 10 + 10), "y": [0.5] * 10})


def watching(source, window, delay=0.1):
    """An answer that records, at each arrival, the batches read ahead of those answered and the
    requests in flight, holding each for `delay` so that a window can fill."""
    state = {"answered": 0, "in_flight": 0, "ahead": [], "flight": []}
    lock = threading.Lock()

    def answer(n, headers, body):
        with lock:
            state["in_flight"] += 1
            state["ahead"].append(source.produced - state["answered"])
            state["flight"].append(state["in_flight"])
        time.sleep(delay)
        with lock:
            state["in_flight"] -= 1
            state["answered"] += 1
        return 200, {}
    return answer, state


def test_one_request_in_flight_and_the_next_batch_read_only_after_the_answer():
    source = Source(6)
    answer, state = watching(source, 1)
    with StandIn(answer) as server:
        done = SmlClient(server.url, "c1", SECRET).learn_batches("p", source, batch_size=10)
    assert done == {"batches": 6, "rows": 60}
    assert max(state["flight"]) == 1
    assert max(state["ahead"]) == 1  # the batch being sent, none read beyond it
    assert [len(s["body"]["data"]) for s in server.seen] == [10] * 6


def test_a_window_of_three_keeps_at_most_three_in_flight_and_four_read():
    source = Source(12)
    answer, state = watching(source, 3)
    with StandIn(answer) as server:
        SmlClient(server.url, "c1", SECRET).learn_batches("p", source, batch_size=10, window=3)
    assert max(state["flight"]) == 3  # the window is used …
    assert max(state["ahead"]) <= 4   # … and bounds what is read: 3 in flight + 1 waiting for a slot
    assert sorted(int(r[0]) for s in server.seen for r in s["body"]["data"]) == list(range(120))


def test_503_waits_its_retry_after_and_resends_the_same_batch_with_its_key():
    arrivals = []

    def answer(n, headers, body):
        arrivals.append(time.monotonic())
        return (503, {"Retry-After": "0.3"}) if n == 2 else (200, {})

    df = pd.DataFrame({"x": range(25)})
    with StandIn(answer) as server:
        done = SmlClient(server.url, "c1", SECRET, retries=0).learn_batches("p", df, batch_size=10)
    assert done == {"batches": 3, "rows": 25}
    assert len(server.seen) == 4
    assert arrivals[2] - arrivals[1] >= 0.3
    keys = [s["headers"]["idempotency-key"] for s in server.seen]
    assert keys[1] == keys[2] and len(set(keys)) == 3  # a retry keeps its key; batches differ
    assert server.seen[1]["body"] == server.seen[2]["body"]
    learned = [r[0] for i, s in enumerate(server.seen) if i != 1 for r in s["body"]["data"]]
    assert learned == [str(i) for i in range(25)]


def test_types_come_from_the_whole_frame_not_from_each_batch():
    # The first batch's x is all 0/1 (B when alone); the frame's x is C, and every batch says so.
    df = pd.DataFrame({"x": [0, 1, 1, 0, 7, 2], "t": ["a", "b", "a", "b", "c", "a"]})
    frames = list(iter_frames(df, 2))
    assert [f["attributeTypes"] for f in frames] == [["C", "T"]] * 3
    # From an iterable the first chunk fixes them; `types` overrides.
    frames = list(iter_frames([df[:2], df[2:]], 4, types={"x": "C"}))
    assert [f["attributeTypes"] for f in frames] == [["C", "T"]] * 2
    assert [len(f["data"]) for f in frames] == [2, 4]
