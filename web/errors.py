"""The one error handler: bad input becomes a JSON error a player can read."""
from __future__ import annotations

from flask import Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from companion.controller.errors import StaleState, StoreError


class NotJoined(HTTPException):
    """A phone that has not entered the table code tried to act."""

    code = 403
    description = "Enter the table code to play. Without it you can watch, but not act."


def register(app: Flask) -> None:
    @app.errorhandler(ValueError)
    def bad_move(err: ValueError):  # IllegalMove, TableError and bad setups are all ValueErrors
        status = 409 if isinstance(err, StaleState) else 400
        return jsonify(error=str(err) or "That is not allowed now."), status

    @app.errorhandler(StoreError)
    def cannot_save(err: StoreError):  # the request was fine; the table's card is not
        return jsonify(error=str(err)), 503

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException):
        if isinstance(err, RequestEntityTooLarge):
            limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
            err.description = f"That request is too large: the table takes at most {limit // 1024} KB."
        if not (request.path.startswith("/api") or request.path.startswith("/stream")):
            return err
        return jsonify(error=err.description or err.name), err.code or 500
