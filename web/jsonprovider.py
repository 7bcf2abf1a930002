"""Flask's JSON provider on orjson: the same output rules, a faster serializer.

Key order is kept as built (SPEC field order), dates, decimals and dataclasses go through Flask's
own conversion, and anything orjson refuses (integers beyond 64 bits, lone surrogates) falls back
to the standard library encoder, so no body is ever lost to the faster path.
"""

import weakref
from typing import Any, cast

import orjson
from flask import Flask, Response
from flask.json.provider import DefaultJSONProvider

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class OrjsonProvider(DefaultJSONProvider):
    """``app.json``: compact, unsorted, UTF-8 JSON from orjson (stdlib json as the fallback)."""

    sort_keys = False

    def __init__(self, app: Flask) -> None:
        super().__init__(app)
        # A proxy, as Flask keeps its own: the app whose response_class takes a body.
        self._made_for = cast(Flask, weakref.proxy(app))

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:  # indent, sort_keys and friends: the standard encoder honours them
            return super().dumps(obj, **kwargs)
        try:
            return orjson.dumps(obj, default=self.default, option=_OPTIONS).decode()
        except TypeError:
            return super().dumps(obj)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        # As jsonify documents it: one argument as is, several as a list, or keyword arguments.
        if args and kwargs:
            raise TypeError("app.json.response() takes either args or kwargs, not both")
        obj = args[0] if len(args) == 1 else args or kwargs or None
        try:
            body: str | bytes = orjson.dumps(obj, default=self.default, option=_OPTIONS)
        except TypeError:
            body = super().dumps(obj)
        return self._made_for.response_class(body, mimetype=self.mimetype)
