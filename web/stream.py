"""Live updates: the state stream (server-sent events) and the camera picture."""
from __future__ import annotations

from flask import Blueprint, Response, jsonify, request, stream_with_context

from web import table_app

bp = Blueprint("stream", __name__, url_prefix="/stream")

RETRY_AFTER_S = 10  # a page refused a stream polls the state meanwhile (web/static/live.js)


@bp.get("/events")
def events() -> Response:
    """Every state change, as `event: state` messages; the newest state comes first.

    Each open stream holds one of the server's threads, so their number is capped below
    the pool: past it the answer is 503 with Retry-After, and the page polls the state."""
    broadcaster = table_app().broadcaster
    q = broadcaster.subscribe()
    if q is None:
        response = jsonify(error=f"The table serves {broadcaster.limit} live pages already: "
                                 "this one looks for changes every few seconds instead.")
        response.status_code = 503
        response.headers["Retry-After"] = str(RETRY_AFTER_S)
        return response
    gone = request.environ.get("waitress.client_disconnected")
    response = Response(
        stream_with_context(broadcaster.stream(q, gone=gone)),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(lambda: broadcaster.unsubscribe(q))  # also when never iterated
    return response


@bp.get("/frame.jpg")
def frame() -> Response:
    """The current camera picture (with the read dice drawn once they settle)."""
    shot = table_app().table.live.jpeg()
    if shot is None:
        return Response(status=204)
    number, data = shot
    etag = f'"f{number}"'
    if request.headers.get("If-None-Match") == etag:
        return Response(status=304, headers={"ETag": etag})
    return Response(data, mimetype="image/jpeg", headers={"ETag": etag, "Cache-Control": "no-cache"})
