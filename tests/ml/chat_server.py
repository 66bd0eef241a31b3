"""A chat-completions server on 127.0.0.1 for tests: scripted replies and failure modes, in a thread."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Action:
    """What the server does for one request: reply (status, content) after `delay`, or drop the line."""

    content: str | None = None
    status: int = 200
    body: Any = None
    delay: float = 0.0
    drop: bool = False
    headers: dict[str, str] = field(default_factory=dict)


def protocol_reply(prompt: str) -> str:
    """A well-formed answer for whichever protocol the prompt asks for."""
    if "Grade this" in prompt:
        return '<think>Sharp, clean.</think><answer>{"technique": 4.5, "coloration": 3.25, "composition": 4, "mood": 2.5, "overall": 3.75}</answer>'
    if "A is the first image" in prompt:
        return '<think>A is sharper.</think><answer>{"technique": "A", "coloration": "B", "composition": "TIE", "mood": "A", "overall": "A"}</answer>'
    if "Describe what is actually visible" in prompt:
        return "Image 1 is sharp with clipped highlights. Image 2 is soft."
    if "Do not pick a winner" in prompt:
        return "The analysis missed a colour cast in image 2."
    if "the best and worst for each dimension" in prompt:
        return '<answer>{"best": 1, "worst": 2, "technique": {"best": 2, "worst": 1}}</answer>'
    return '<think>1 is best.</think><answer>{"best": 1, "worst": 2}</answer>'


Responder = Callable[[dict[str, Any], int], Action]


def well_behaved(body: dict[str, Any], call: int) -> Action:
    """Answers every protocol correctly."""
    return Action(protocol_reply(prompt_text(body)))


def prompt_text(body: dict[str, Any]) -> str:
    """The text part of the request's user message."""
    parts = body["messages"][0]["content"]
    return "".join(p.get("text", "") for p in parts if p.get("type") == "text")


class ChatServer:
    """Run with `with ChatServer(responder) as server:`; `server.base_url` ends in /v1."""

    def __init__(self, responder: Responder = well_behaved) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with outer._lock:
                    call = len(outer.requests)
                    outer.requests.append(body)
                    outer.headers.append(dict(self.headers))
                action = outer.responder(body, call)
                if action.delay:
                    time.sleep(action.delay)
                if action.drop:
                    self.connection.shutdown(2)
                    self.close_connection = True
                    return
                if action.body is not None:
                    payload = action.body if isinstance(action.body, bytes) else json.dumps(action.body).encode()
                else:
                    payload = json.dumps(
                        {
                            "id": f"call-{call}",
                            "object": "chat.completion",
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": action.content}}],
                        }
                    ).encode()
                try:
                    self.send_response(action.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in action.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:PORT/v1"""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
