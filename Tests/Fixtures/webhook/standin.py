"""What the providers' stand-ins (pagerduty.py, opsgenie.py, chat.py) share: answering a
request with a status, a JSON (or raw) body and headers, and serving on 127.0.0.1 until killed,
saying "listening" once the port is open."""
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def answer(handler, status, body=None, headers=()):
    """`body`: an object (sent as JSON), bytes (as they are), or None (no body)."""
    data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    handler.send_response(status)
    for name, value in headers:
        handler.send_header(name, value)
    if body is not None:
        handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def serve(port, handler_class):
    server = ThreadingHTTPServer(("127.0.0.1", port), handler_class)
    print("listening", flush=True)
    server.serve_forever()


class StandInHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing to stderr and answers with `answer`."""

    def log_message(self, *_):
        pass

    def answer(self, status, body=None, headers=()):
        answer(self, status, body, headers)
