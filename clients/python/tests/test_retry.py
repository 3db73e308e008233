"""A 503 is retried after Retry-After, a learn keeping one Idempotency-Key for all its tries;
a local stand-in server (no SML system needed) answers 503 first."""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from sml import SmlClient, UnavailableError


class _Server:
    def __init__(self, failures):
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", 0)))
                seen.append(dict((k.lower(), v) for k, v in self.headers.items()))
                busy = len(seen) <= failures
                body = json.dumps({"statusCode": 503 if busy else 200, "statusString": "busy" if busy else "OK", "values": {}}).encode()
                self.send_response(503 if busy else 200)
                if busy:
                    self.send_header("Retry-After", "0")
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


FRAME = {"attributeNames": ["x"], "attributeTypes": ["C"], "data": [["1"]]}


def test_503_is_retried_with_one_idempotency_key():
    server = _Server(failures=2)
    try:
        res = SmlClient(server.url, "c1", "AAAAAAAAAAAAAAAAAAAAAA==").learn("p", FRAME)
    finally:
        server.close()
    assert res.status == 200
    assert len(server.seen) == 3
    keys = {h["idempotency-key"] for h in server.seen}
    assert len(keys) == 1 and keys != {""}
    # Each try is signed afresh (a new Sym-date), or the replay cache would refuse it.
    assert len({h["sym-date"] for h in server.seen}) == 3


def test_503_after_the_last_retry_is_an_unavailable_error():
    server = _Server(failures=10)
    try:
        with pytest.raises(UnavailableError) as e:
            SmlClient(server.url, "c1", "AAAAAAAAAAAAAAAAAAAAAA==", retries=1).learn("p", FRAME)
    finally:
        server.close()
    assert e.value.status == 503 and e.value.message == "busy"
    assert len(server.seen) == 2
