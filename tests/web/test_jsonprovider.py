"""app.json.response takes its arguments as Flask's own provider does, and writes compact JSON."""

from typing import Any

import pytest
from flask import Flask
from flask.json.provider import DefaultJSONProvider

from web.jsonprovider import OrjsonProvider


@pytest.mark.parametrize(
    ("args", "kwargs", "body"),
    [
        ((), {}, b"null"),
        (({"b": 1, "a": [1, 2]},), {}, b'{"b":1,"a":[1,2]}'),
        ((1, "two"), {}, b'[1,"two"]'),
        ((), {"b": 1, "a": "é"}, '{"b":1,"a":"é"}'.encode()),
    ],
)
def test_the_response_holds_what_flasks_provider_would_hold(
    args: tuple, kwargs: dict[str, Any], body: bytes
) -> None:
    app = Flask(__name__)
    ours, stock = OrjsonProvider(app), DefaultJSONProvider(app)
    response = ours.response(*args, **kwargs)
    assert response.get_data() == body
    assert response.mimetype == "application/json"
    assert response.get_json() == stock.response(*args, **kwargs).get_json()


def test_positional_and_keyword_arguments_together_are_refused_as_flask_does() -> None:
    app = Flask(__name__)
    for provider in (OrjsonProvider(app), DefaultJSONProvider(app)):
        with pytest.raises(TypeError, match="either args or kwargs, not both"):
            provider.response(1, a=2)
