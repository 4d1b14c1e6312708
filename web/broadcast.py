"""Server-sent events: one queue per open phone, the newest state replayed on connect.

The table calls `publish()` after every change; each stream generator blocks on its
own queue and sends a keep-alive comment when nothing happened for a while, which
is also how waitress notices that a phone went away and frees its thread.
"""
from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from typing import Any

RETRY_MS = 2000


def sse(event: str, data: str, event_id: int | None = None) -> str:
    """One SSE message (data on one line: JSON has no raw newlines)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


def drop(q: queue.Queue[str | None]) -> None:
    """Empty a client's queue and leave only the end-of-stream marker in it."""
    try:
        while True:
            q.get_nowait()
    except queue.Empty:
        pass
    q.put_nowait(None)


class Broadcaster:
    """Fans messages out to every connected client."""

    def __init__(self, *, keepalive: float = 15.0, max_queue: int = 64) -> None:
        self.keepalive = keepalive
        self.max_queue = max_queue
        self._lock = threading.Lock()
        self._clients: set[queue.Queue[str | None]] = set()
        self._last: str | None = None

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def publish_state(self, state: dict[str, Any]) -> None:
        """Send a new table state to everyone (and keep it for phones that connect later)."""
        message = sse("state", json.dumps(state, separators=(",", ":")), state.get("version"))
        with self._lock:
            self._last = message
            for q in list(self._clients):
                try:
                    q.put_nowait(message)
                except queue.Full:  # a phone that stopped reading: end its stream, it reconnects
                    self._clients.discard(q)
                    drop(q)

    def subscribe(self) -> queue.Queue[str | None]:
        q: queue.Queue[str | None] = queue.Queue(maxsize=self.max_queue)
        with self._lock:
            self._clients.add(q)
            if self._last is not None:
                q.put_nowait(self._last)
        return q

    def unsubscribe(self, q: queue.Queue[str | None]) -> None:
        with self._lock:
            self._clients.discard(q)

    def stream(self, first: str | None = None) -> Iterator[str]:
        """The body of one phone's event stream; ends when the phone goes away."""
        q = self.subscribe()
        try:
            yield f"retry: {RETRY_MS}\n\n"
            if first is not None:
                yield first
            while True:
                try:
                    message = q.get(timeout=self.keepalive)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                if message is None:
                    return
                yield message
        finally:
            self.unsubscribe(q)

    def close_all(self) -> None:
        """End every stream (server shutdown)."""
        with self._lock:
            clients, self._clients = self._clients, set()
        for q in clients:
            drop(q)
