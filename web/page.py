"""The phone page (one HTML page, local script and style) and the join QR code."""
from __future__ import annotations

import io

import segno
import segno.helpers
from flask import Blueprint, Response, abort, current_app, render_template

from web import table_app
from web.api import join_link, joined, own_network
from web.errors import NotJoined

bp = Blueprint("page", __name__)


@bp.get("/")
def index() -> str:
    return render_template(
        "index.html",
        frame_interval=int(current_app.config["FRAME_INTERVAL_MS"]),
        code_length=len(table_app().pin),
    )


@bp.get("/qr.svg")
def qr() -> Response:
    """The join link (with the table code) as a QR code, for joined phones to show others."""
    if not joined():
        raise NotJoined()
    return _svg(segno.make(join_link(), error="m"))


@bp.get("/wifi.svg")
def wifi_qr() -> Response:
    """A QR code that joins the table's own Wi-Fi network (scripts/pi-hotspot), for joined
    phones to show the others: a phone's camera offers to join it."""
    if not joined():
        raise NotJoined()
    network = own_network()
    if network is None:
        abort(404, "This table has no Wi-Fi network of its own (scripts/pi-hotspot makes one).")
    return _svg(segno.helpers.make_wifi(ssid=network["name"], password=network["password"],
                                        security="WPA"))


def _svg(code: segno.QRCode) -> Response:
    """A QR code as the page shows it (an SVG in the page's dark ink), never cached."""
    out = io.BytesIO()
    code.save(out, kind="svg", scale=6, border=2, dark="#1b1430")
    return Response(out.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})
