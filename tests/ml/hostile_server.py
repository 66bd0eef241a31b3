"""An HTTP server on a loopback address whose replies a test writes by hand: redirects, trickles, floods."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Behaviour = Callable[[BaseHTTPRequestHandler], None]


class HostileServer:
    """`with HostileServer(behaviour, host) as server:`; every request's headers are recorded, then `behaviour` answers."""

    def __init__(self, behaviour: Behaviour, host: str = "127.0.0.1") -> None:
        self.requests: list[dict[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.requests.append(dict(self.headers))
                with contextlib.suppress(OSError):  # the client gave up, as it should
                    behaviour(self)
                self.close_connection = True

            do_GET = do_PUT = do_POST  # a followed redirect may change the method: record it too

        self._server = ThreadingHTTPServer((host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def url(self, host: str | None = None) -> str:
        """http://HOST:PORT/v1 (HOST defaults to the address the server listens on)."""
        return f"http://{host or self._server.server_address[0]}:{self.port}/v1"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
