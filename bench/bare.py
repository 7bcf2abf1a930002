"""The ceiling of the stack: a bare Flask JSON endpoint, served by the same gunicorn config."""

from flask import Flask

app = Flask(__name__)


@app.get("/ping")
def ping() -> dict:
    return {"success": True, "data": {"ok": True}}
