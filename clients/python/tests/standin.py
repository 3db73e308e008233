"""A local stand-in for the gateway (no SML system needed): `answer(n, headers, body)` decides
each POST's (status, extra headers) from its 1-based arrival number; every request is recorded."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Tuple

Answer = Callable[[int, Dict[str, str], Any], Tuple[int, Dict[str, str]]]


class StandIn:
    def __init__(self, answer: Answer):
        seen: List[Dict[str, Any]] = []
        self.seen = seen
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with lock:
                    seen.append({"headers": headers, "body": json.loads(raw) if raw else None})
                    n = len(seen)
                status, extra = answer(n, headers, seen[-1]["body"])
                body = json.dumps({"statusCode": status, "statusString": "OK" if status < 300 else "busy", "values": {}}).encode()
                self.send_response(status)
                for k, v in extra.items():
                    self.send_header(k, v)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "StandIn":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
