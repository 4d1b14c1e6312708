"""Server-sent events: one queue per open phone, the newest state replayed on connect.

The table calls `publish_state()` after every change; each stream generator blocks on
its own queue and sends a keep-alive comment when nothing happened for a while. Every
CHECK_S it also asks the server whether its phone went away (waitress sees a closed
connection while the stream runs), so a reloaded or closed page frees its thread.
At most `limit` streams run at once (the server sets it below its thread pool).

Phones get the state without the game's whole history and statistics (`for_phones`):
they grow with every step, and the History and Stats tabs fetch them (/api/history).
"""
from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

RETRY_MS = 2000
CHECK_S = 2.0  # how often a waiting stream looks whether its phone is still there


def for_phones(state: dict[str, Any]) -> dict[str, Any]:
    """The state as phones get it: `history` holds the newest entry only (with
    `history_length` the whole count), and no `stats`: both are at GET /api/history."""
    history = state.get("history") or []
    out = {k: v for k, v in state.items() if k != "stats"}
    out["history"] = history[-1:]
    out["history_length"] = len(history)
    return out


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

    def __init__(self, *, keepalive: float = 15.0, max_queue: int = 64, limit: int | None = None) -> None:
        self.keepalive = keepalive
        self.max_queue = max_queue
        self.limit = limit  # streams at once; None: no limit
        self._lock = threading.Lock()
        self._clients: set[queue.Queue[str | None]] = set()
        self._last: str | None = None

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def publish_state(self, state: dict[str, Any]) -> None:
        """Send a new table state to everyone (and keep it for phones that connect later)."""
        message = sse("state", json.dumps(for_phones(state), separators=(",", ":")), state.get("version"))
        with self._lock:
            self._last = message
            for q in list(self._clients):
                try:
                    q.put_nowait(message)
                except queue.Full:  # a phone that stopped reading: end its stream, it reconnects
                    self._clients.discard(q)
                    drop(q)

    @property
    def last_message(self) -> str | None:
        """The newest state's message (what a phone that connects now gets first)."""
        return self._last

    def subscribe(self) -> queue.Queue[str | None] | None:
        """A new client's queue, the newest state already in it; None when `limit`
        streams are open already."""
        q: queue.Queue[str | None] = queue.Queue(maxsize=self.max_queue)
        with self._lock:
            if self.limit is not None and len(self._clients) >= self.limit:
                return None
            self._clients.add(q)
            if self._last is not None:
                q.put_nowait(self._last)
        return q

    def unsubscribe(self, q: queue.Queue[str | None]) -> None:
        with self._lock:
            self._clients.discard(q)

    def stream(self, q: queue.Queue[str | None] | None = None, *, first: str | None = None,
               gone: Callable[[], bool] | None = None) -> Iterator[str]:
        """The body of one phone's event stream over `q` (subscribed here when None); ends
        when the phone goes away (`gone()` true, or a write fails) or close_all() is called."""
        q = q if q is not None else self.subscribe()
        if q is None:
            return
        try:
            yield f"retry: {RETRY_MS}\n\n"
            if first is not None:
                yield first
            quiet_since = time.monotonic()
            while True:
                try:
                    message = q.get(timeout=min(self.keepalive, CHECK_S))
                except queue.Empty:
                    if gone is not None and gone():
                        return
                    if time.monotonic() - quiet_since >= self.keepalive:
                        quiet_since = time.monotonic()
                        yield ": keep-alive\n\n"
                    continue
                if message is None:
                    return
                quiet_since = time.monotonic()
                yield message
        finally:
            self.unsubscribe(q)

    def close_all(self) -> None:
        """End every stream (server shutdown)."""
        with self._lock:
            clients, self._clients = self._clients, set()
        for q in clients:
            drop(q)
