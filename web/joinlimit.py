"""Wrong table codes cost time, per client and for the whole table.

Every code tried is charged before it is tested, and refunded when it was right, so
parallel requests cannot slip past. Per client (its address): 5 tries free, then a wait
that doubles from 2 s up to 5 minutes, forgotten after an hour without tries. For the
whole table (a stranger may use many addresses): a bucket of 10 tries refilled one per
10 s, so all 10,000 four-digit codes take at least 27 hours. While a client must wait,
its code is not tested at all (429 with Retry-After).

Written here, not taken from Flask-Limiter: it can count only refused requests
(deduct_when), but has fixed windows, no wait that grows per client and no refund, and
brings the `limits` package and a storage layer for what is a few numbers per address.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Client:
    wrong: int = 0  # codes charged (tried) since the last right one
    next_at: float = 0.0  # no code from this client is tested before then
    last: float = 0.0  # the last try
    logged: float = -1e9  # the last refusal written to the log


class JoinLimiter:
    """Decides whether a client's code may be tested now, and charges for it."""

    def __init__(self, *, free: int = 5, first_wait: float = 2.0, max_wait: float = 300.0,
                 forget: float = 3600.0, burst: int = 10, refill: float = 10.0,
                 max_clients: int = 4096, clock: Callable[[], float] = time.monotonic) -> None:
        self.free, self.first_wait, self.max_wait, self.forget = free, first_wait, max_wait, forget
        self.burst, self.refill, self.max_clients, self.clock = burst, refill, max_clients, clock
        self._tokens = float(burst)
        self._filled = clock()
        self._clients: OrderedDict[str, Client] = OrderedDict()
        self._lock = threading.Lock()

    def _fill(self, now: float) -> None:
        self._tokens = min(float(self.burst), self._tokens + (now - self._filled) / self.refill)
        self._filled = now

    def _client(self, key: str, now: float) -> Client:
        client = self._clients.pop(key, None)
        if client is None or now - client.last > self.forget:
            client = Client()
        self._clients[key] = client  # most recent last
        while len(self._clients) > self.max_clients:
            self._clients.popitem(last=False)
        return client

    def admit(self, key: str) -> float:
        """0 and the try charged (test the code now), or the seconds to wait first."""
        with self._lock:
            now = self.clock()
            self._fill(now)
            client = self._client(key, now)
            wait = max(client.next_at - now, (1 - self._tokens) * self.refill if self._tokens < 1 else 0.0)
            if wait > 0:
                return wait
            self._tokens -= 1
            client.wrong += 1
            client.last = now
            if client.wrong > self.free:
                doublings = min(client.wrong - self.free - 1, 30)  # (past max_wait long before)
                client.next_at = now + min(self.max_wait, self.first_wait * 2.0 ** doublings)
            return 0.0

    def right(self, key: str) -> None:
        """The code was right: refund its try and forget the client's wrong ones."""
        with self._lock:
            self._tokens = min(float(self.burst), self._tokens + 1)
            self._clients.pop(key, None)

    def wrong(self, key: str) -> int:
        """How many codes `key` tried since its last right one (for the log)."""
        with self._lock:
            client = self._clients.get(key)
            return client.wrong if client else 0

    def log_refusal(self, key: str, every: float = 60.0) -> bool:
        """True at most once a minute per client: whether to log this refusal."""
        with self._lock:
            now = self.clock()
            client = self._client(key, now)
            if now - client.logged < every:
                return False
            client.logged = now
            return True

    def full_search_seconds(self, codes: int) -> float:
        """The least time `codes` wrong codes take at the table-wide rate."""
        return max(0, codes - self.burst) * self.refill
