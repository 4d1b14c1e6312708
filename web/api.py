"""The JSON API, in the vocabulary of the game records (docs/records.md).

Views only translate HTTP into table calls. Every POST but /api/join needs the
table code cookie; illegal moves come back as 400 with a readable message and
change nothing (the table checks through the engine before storing).
"""
from __future__ import annotations

import hmac
import json
import logging
import math
import unicodedata
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, jsonify, request, session

from web import MAX_PIN, table_app
from web.broadcast import for_phones
from web.errors import NotJoined
from web.guard import json_body

log = logging.getLogger(__name__)

bp = Blueprint("api", __name__, url_prefix="/api")


def joined() -> bool:
    """True when this phone's cookie holds the current table code."""
    return hmac.compare_digest(str(session.get("pin", "")).encode(), table_app().pin.encode())


@bp.before_request
def only_players_act() -> None:
    if request.method == "POST" and request.endpoint != "api.join" and not joined():
        raise NotJoined()


def body() -> Any:
    """The request's JSON, or a 400 (413: too large) that says what was wrong with it."""
    return json_body()


def seen() -> str | None:
    """The game position the phone saw when the player tapped (optional header)."""
    return request.headers.get("X-Game-Position") or None


def answer(state: dict[str, Any]) -> Response:
    """The state as phones get it (without the whole history: GET /api/history)."""
    return jsonify(for_phones(state) | {"joined": joined()})


@bp.get("/state")
def state() -> Response:
    return answer(table_app().table.state())


@bp.get("/history")
def history() -> Response:
    """The game's whole history and statistics (the History and Stats tabs)."""
    full = table_app().table.state()
    return jsonify(version=full["version"], boot=full["boot"], history=list(full.get("history") or []),
                   stats=full.get("stats") or {"armies": [], "faces": {}})


@bp.post("/join")
def join() -> Response:
    data = body()
    pin = data.get("pin", "") if isinstance(data, dict) else ""
    if isinstance(pin, bool) or not isinstance(pin, (str, int)):
        abort(400, "The table code is a number, sent as {\"pin\": \"2468\"}.")
    pin = str(pin)
    if len(pin) > MAX_PIN:  # before anything else is done with it (a 50 MB code took 3.7 GB)
        abort(400, f"A table code has at most {MAX_PIN} characters.")
    pin = pin.strip()
    joins, client = table_app().joins, request.remote_addr or "?"
    wait = joins.admit(client)
    if wait > 0:
        if joins.log_refusal(client):
            log.warning("join refused for %.0f s to %s: too many wrong table codes", wait, client)
        response = jsonify(error=f"Too many wrong codes were tried: wait {math.ceil(wait)} s, then try again.")
        response.headers["Retry-After"] = str(math.ceil(wait))
        return response, 429
    # A phone keyboard may type another script's digits ("٢٤٦٨", "２４６８"): the same code.
    pin = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in pin)
    # As bytes: compare_digest refuses str with other characters than ASCII.
    if not hmac.compare_digest(pin.encode(), table_app().pin.encode()):
        log.warning("wrong table code from %s (%d tried from there)", client, joins.wrong(client))
        return jsonify(error="That is not the table code. Look at a joined phone or the Pi's log."), 403
    joins.right(client)
    session.permanent = True
    session["pin"] = pin
    return answer(table_app().table.state())


@bp.post("/games")
def new_game() -> Response:
    return answer(table_app().table.new_game(body()))


@bp.post("/steps")
def steps() -> Response:
    return answer(table_app().table.apply_step(body(), source="phone", seen=seen()))


@bp.post("/undo")
def undo() -> Response:
    return answer(table_app().table.undo(seen=seen()))


@bp.post("/dispute")
def dispute() -> Response:
    """"Wrong read? Fix it": take back the camera's roll, and ask about it again with its
    photo to mark."""
    return answer(table_app().table.dispute(seen=seen()))


@bp.post("/settings")
def settings() -> Response:
    """Change the table's settings, e.g. {"advisor": false} (kept across restarts)."""
    return answer(table_app().table.set_settings(body()))


@bp.post("/dice/learn")
def learn_dice() -> Response:
    """Start learning the table's own dice from its kept photos (the Table tab's button);
    progress and the outcome come in the state's photos.learning."""
    return answer(table_app().table.learn_dice())


@bp.post("/pending/dismiss")
def dismiss() -> Response:
    return answer(table_app().table.dismiss())


@bp.post("/pending/mark")
def mark() -> Response:
    """A mark on the photo of the camera's open question, {"x": 0-1, "y": 0-1, "face":
    1-6 | "blank" | "dragon" | "rally" | "none" | "clear"}: a box's real face, a die the
    camera missed, no die in a box, or a mark taken back (companion/controller/marks.py)."""
    return answer(table_app().table.mark_pending(body()))


@bp.post("/teach")
def teach() -> Response:
    """{"on": true}: teach the camera (each settled roll a photo to check and keep),
    {"on": false}: back to playing."""
    data = body()
    return answer(table_app().table.set_teaching(data.get("on") if isinstance(data, dict) else None))


@bp.post("/teach/keep")
def keep_taught() -> Response:
    """Keep the photo being taught in the photo log, labelled with its faces and marks."""
    return answer(table_app().table.keep_taught())


@bp.get("/record")
def record() -> Response:
    response = jsonify(table_app().table.record())
    response.headers["Content-Disposition"] = "attachment; filename=dragon-farkle-game.json"
    return response


@bp.get("/code")
def code() -> Response:
    """The table code and join link, for phones already joined (to show the others), and
    the name of the table's own Wi-Fi network when it has one (scripts/pi-hotspot)."""
    if not joined():
        raise NotJoined()
    network = own_network()
    return jsonify(pin=table_app().pin, link=join_link(),
                   wifi=None if network is None else network["name"])


WIFI_FILE = "wifi.json"  # written by scripts/pi-hotspot into the data folder


def own_network() -> dict[str, str] | None:
    """{"name", "password"} of the Wi-Fi network the Pi opens itself (DATA/wifi.json,
    scripts/pi-hotspot), or None: none set up, or a file that is not such a network."""
    from flask import current_app

    path = Path(current_app.config["DATA_DIR"]) / WIFI_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        log.warning("%s: not read (%s)", path, err)
        return None
    name, password = (doc.get(k) if isinstance(doc, dict) else None for k in ("name", "password"))
    if not (isinstance(name, str) and 1 <= len(name) <= 32
            and isinstance(password, str) and 8 <= len(password) <= 63):
        log.warning("%s: needs a name of 1-32 and a password of 8-63 characters", path)
        return None
    return {"name": name, "password": password}


def join_link() -> str:
    from flask import current_app

    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return f"{base.rstrip('/')}/?code={table_app().pin}"


@bp.get("/evidence/<int:seq>.jpg")
def evidence(seq: int) -> Response:
    data = table_app().table.evidence(seq)
    if data is None:
        abort(404, "No picture was kept for that step.")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "max-age=86400"})


@bp.get("/evidence/pending.jpg")
def pending_evidence() -> Response:
    data = table_app().table.pending_evidence()
    if data is None:
        abort(404, "The camera has no open question.")
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


def keeper() -> Any:
    found = table_app().calibration
    if found is None:
        abort(404, "Calibration needs the camera: start the table with a camera to calibrate.")
    return found


@bp.get("/calibration")
def calibration() -> Response:
    return jsonify(keeper().summary(table_app().table.live.size()))


@bp.post("/calibration/tray")
def calibration_tray() -> Response:
    data = body()
    if not isinstance(data, dict):
        abort(400, "Send {\"points\": [[x, y], ...], \"rotation\": 0} with x, y between 0 and 1.")
    frame = table_app().table.live.size()
    return jsonify(keeper().set_tray(data.get("points"), frame, data.get("rotation")))


@bp.post("/calibration/find_tray")
def calibration_find_tray() -> Response:
    return jsonify(keeper().find_tray(table_app().table.live.raw()))


@bp.post("/calibration/color")
def calibration_color() -> Response:
    data = body()
    name = data.get("name") if isinstance(data, dict) else None
    return jsonify(keeper().learn_color(table_app().table.live.raw(), name))


@bp.post("/calibration/event")
def calibration_event() -> Response:
    data = body()
    face = data.get("face") if isinstance(data, dict) else None
    return jsonify(keeper().capture_event(table_app().table.live.raw(), face))


@bp.post("/calibration/event/restart")
def calibration_event_restart() -> Response:
    return jsonify(keeper().restart_event())


@bp.post("/calibration/event/forget")
def calibration_event_forget() -> Response:
    return jsonify(keeper().forget_event_picture())


@bp.post("/calibration/lock")
def calibration_lock() -> Response:
    return jsonify(keeper().lock_exposure())


@bp.post("/calibration/leds")
def calibration_leds() -> Response:
    table = table_app().table
    return jsonify(keeper().map_leds(table.live.raw, table.state()))
