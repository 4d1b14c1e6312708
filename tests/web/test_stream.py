"""Server-sent events: the newest state on connect, every change after, keep-alives when idle."""
from __future__ import annotations

import json
import queue

from web.broadcast import Broadcaster


def messages(response):
    """The stream's chunks as text, one per yield."""
    for chunk in response.response:
        yield chunk.decode() if isinstance(chunk, bytes) else chunk


def parse(message: str) -> tuple[str, dict]:
    fields = dict(line.split(": ", 1) for line in message.strip().splitlines() if ": " in line)
    return fields["event"], json.loads(fields["data"])


def test_stream_sends_current_state_then_each_change(app, game):
    watcher = app.test_client()
    r = watcher.get("/stream/events", buffered=False)
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"] == "no-cache"
    chunks = messages(r)
    assert next(chunks).startswith("retry: ")
    kind, state = parse(next(chunks))
    assert kind == "state" and state["phase"] == "choose_action"
    game.post("/api/steps", json={"action": "recruit"})
    kind, state = parse(next(chunks))
    assert state["phase"] == "roll" and state["history"][-1]["text"] == "Jane chose Recruit"
    game.post("/api/undo", json={})
    assert parse(next(chunks))[1]["phase"] == "choose_action"
    assert next(chunks) == ": keep-alive\n\n"  # SSE_KEEPALIVE is 0.2 s in the tests
    r.close()
    assert app.extensions["dragon_farkle"].broadcaster.clients == 0


def test_a_refused_step_sends_nothing(app, game):
    b = app.extensions["dragon_farkle"].broadcaster
    q = b.subscribe()
    q.get_nowait()  # the current state
    game.post("/api/steps", json={"action": "fly"})
    assert q.empty()


def test_a_phone_that_stops_reading_is_dropped_not_waited_for():
    b = Broadcaster(max_queue=3)
    slow, fast = b.subscribe(), b.subscribe()
    for version in range(5):
        b.publish_state({"version": version})
        fast.get_nowait()
    assert b.clients == 1
    drained = []
    while True:
        try:
            drained.append(slow.get_nowait())
        except queue.Empty:
            break
    assert drained == [None]  # its stream ends; the browser reconnects and gets the newest state


def test_close_all_ends_every_stream():
    b = Broadcaster(keepalive=5)
    b.publish_state({"version": 1})
    stream = b.stream()
    assert next(stream).startswith("retry")
    assert "event: state" in next(stream)
    b.close_all()
    assert list(stream) == []
    assert b.clients == 0


def test_camera_picture_with_etag(app, client):
    import numpy as np

    table = app.extensions["dragon_farkle"].table
    assert client.get("/stream/frame.jpg").status_code == 204  # no frame yet
    table.live.show(np.full((480, 640, 3), 120, np.uint8))
    r = client.get("/stream/frame.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    again = client.get("/stream/frame.jpg", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304
    table.live.show(np.full((480, 640, 3), 10, np.uint8))
    assert client.get("/stream/frame.jpg", headers={"If-None-Match": r.headers["ETag"]}).status_code == 200
