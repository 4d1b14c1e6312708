"""The Flask app: phone page, JSON API, live updates."""
