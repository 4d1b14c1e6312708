"""Live updates: the state stream (server-sent events) and the camera picture."""
from __future__ import annotations

from flask import Blueprint, Response, request, stream_with_context

from web import table_app

bp = Blueprint("stream", __name__, url_prefix="/stream")


@bp.get("/events")
def events() -> Response:
    """Every state change, as `event: state` messages; the newest state comes first."""
    gen = table_app().broadcaster.stream()
    return Response(
        stream_with_context(gen),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


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
