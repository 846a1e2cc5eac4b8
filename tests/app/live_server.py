"""Test helper: an app under a real uvicorn server in a thread on a loopback port, and a tiny page server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import uvicorn

from app.redis.local import free_port


@contextmanager
def serving(config: uvicorn.Config) -> Iterator[uvicorn.Server]:
    """`config`'s server running in a thread until the block ends (it must listen on a port of 127.0.0.1)."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def loopback_config(app: object, **options: object) -> uvicorn.Config:
    """A uvicorn config for `app` on a free port of 127.0.0.1."""
    return uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning", **options)  # type: ignore[arg-type]


@contextmanager
def page_server(pages: Mapping[str, str]) -> Iterator[str]:
    """Serves `pages` (path -> HTML) on another port of 127.0.0.1: another origin on the same host. Its base URL."""

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "not here").encode()
            self.send_response(200 if self.path in pages else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
