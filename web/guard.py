"""The checks in front of every view, for a table on a Wi-Fi that strangers share.

- The table answers only at its own names and addresses (`Host`), so a page elsewhere
  cannot read it through DNS rebinding.
- A state-changing request needs a JSON body or an `X-Requested-With` header (neither can
  come from a plain HTML form), and one whose `Origin` is another page is refused.
- A tap that waited in the server's queue longer than its phone waits is not played late.
- Bodies are read with a size limit (Flask's MAX_CONTENT_LENGTH) and a nesting limit.
- Every answer carries a Content-Security-Policy that forbids inline script.

Written here rather than taken from a library: Flask's TRUSTED_HOSTS is a fixed list,
while a table's addresses change with the network it is on (the address a request came
in on is taken from the connection instead, web/serving.py).
"""
from __future__ import annotations

import ipaddress
import json
import logging
import socket
import time
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, abort, current_app, g, request

log = logging.getLogger(__name__)

STARTED = "dragon_farkle.request_started"  # environ: monotonic time of the request's first byte
LOCAL_ADDRESS = "dragon_farkle.local_address"  # environ: the table's address it came in on
MAX_DEPTH = 20  # a setup or step nests 3 deep; 100,000 deep once gave a server error
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
       "form-action 'self'")
DEFAULT_PORTS = {"http": 80, "https": 443}


def register(app: Flask) -> None:
    app.extensions["dragon_farkle.names"] = own_names(app)
    app.before_request(check_host)
    app.before_request(check_unsafe)
    app.after_request(secure_headers)


def own_names(app: Flask) -> set[str]:
    """The names the table answers at: localhost, this machine's name (and NAME.local),
    the join link's host and the configured names (TABLE_NAMES)."""
    names = {"localhost"}
    host = socket.gethostname().split(".")[0].lower()
    if host:
        names |= {host, f"{host}.local"}
    public = app.config.get("PUBLIC_URL")
    if public:
        names.add((urlsplit(public).hostname or "").lower())
    extra = app.config.get("TABLE_NAMES") or []
    if isinstance(extra, str):
        extra = extra.split(",")
    names |= {str(n).strip().lower().rstrip(".") for n in extra if str(n).strip()}
    return names - {""}


def split_host(host: str) -> tuple[str, int | None]:
    """("name or address", port) of a Host header (IPv6 in brackets), lower case."""
    host = host.strip().lower()
    port: int | None = None
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        if rest.startswith(":") and rest[1:].isdigit():
            port = int(rest[1:])
        return name, port
    name, sep, tail = host.rpartition(":")
    if sep and tail.isdigit() and ":" not in name:
        return name.rstrip("."), int(tail)
    return host.rstrip("."), None


def plain_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def host_allowed(host: str, local: str | None, names: set[str]) -> bool:
    """An address is allowed where the request came in on it (any, without a server that
    says); a name where it is one of the table's own."""
    name, _ = split_host(host)
    address = plain_address(name)
    if address is None:
        return name in names
    if local is None or name in names:
        return True
    return address == plain_address(local)


def check_host() -> None:
    names = current_app.extensions["dragon_farkle.names"]
    if host_allowed(request.host, request.environ.get(LOCAL_ADDRESS), names):
        return
    log.warning("refused a request for %r from %s (not one of the table's names: "
                "add it to server.names in the configuration file)", request.host, request.remote_addr)
    abort(421, "This table answers only at its own address: open the link the table shows.")


def same_origin(origin: str) -> bool:
    parts = urlsplit(origin)
    scheme = (parts.scheme or "").lower()
    try:
        port = parts.port or DEFAULT_PORTS.get(scheme)
    except ValueError:
        return False
    name, own_port = split_host(request.host)
    return (scheme == request.scheme and (parts.hostname or "").lower().rstrip(".") == name
            and port == (own_port or DEFAULT_PORTS.get(request.scheme)))


def check_unsafe() -> None:
    """Refuse what changes the table unless it comes from the table's own page, in time."""
    if request.method not in UNSAFE:
        return
    origin = request.headers.get("Origin")
    if origin is not None and not same_origin(origin):
        log.warning("refused %s %s from %s: sent by another page (%s)", request.method,
                    request.path, request.remote_addr, origin[:100])
        abort(403, "Refused: that request came from another page. Play on the table's own page.")
    if not (request.is_json or "X-Requested-With" in request.headers):
        abort(400, "The request body must be JSON (Content-Type: application/json), as the table's page sends it.")
    started = request.environ.get(STARTED)
    if started is not None:
        waited = time.monotonic() - float(started)
        if waited > float(current_app.config["TAP_MAX_AGE"]):
            log.warning("%s %s from %s not done: it reached the table %.1f s ago, past the "
                        "phone's wait", request.method, request.path, request.remote_addr, waited)
            abort(409, f"That tap waited {waited:.0f} s for the table, longer than the phone waits, "
                       "so it was not played. Look at the game, then tap again.")


def nested_deeper(data: Any, limit: int) -> bool:
    """True when lists and objects nest more than `limit` deep (without recursion)."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            stack.extend((c, depth + 1) for c in (item.values() if isinstance(item, dict) else item))
    return False


def json_body() -> Any:
    """The request's JSON, or a 400 (413: too large) that says what was wrong with it."""
    if "json_body" in g:
        return g.json_body
    if not request.is_json:
        abort(400, "The request body must be JSON (Content-Type: application/json).")
    raw = request.get_data(cache=True)  # past MAX_CONTENT_LENGTH: 413
    try:
        data = json.loads(raw)
    except RecursionError:
        abort(400, "The request's JSON is nested too deeply.")
    except ValueError:
        abort(400, "The request body must be JSON, and this is not valid JSON.")
    if nested_deeper(data, MAX_DEPTH):
        abort(400, "The request's JSON is nested too deeply.")
    g.json_body = data
    return data


def secure_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response
