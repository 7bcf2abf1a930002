"""REST query parameters: each bad value, repeat or unknown name is a 400 naming the parameter."""

import pytest


def test_validation_error_names_parameter_and_range(api) -> None:
    body = api.json("/api/v1/strains", status=400, limit="abc")
    assert body["error"] == {
        "code": 400,
        "message": "limit must be an integer from 1 to 100 (larger values are reduced to 100)",
        "docs": body["error"]["docs"],
        "param": "limit",
    }
    assert body["error"]["docs"].endswith("/docs/errors#error-400")


def test_duplicated_parameter_is_rejected(api) -> None:
    response = api.client.get("/api/v1/strains?thc_min=1&thc_min=2", headers={"X-API-Key": api.key})
    assert response.status_code == 400
    assert response.get_json()["error"]["message"] == "thc_min was given more than once"


def test_a_filter_taking_several_values_may_be_repeated(api) -> None:
    repeated = api.json("/api/v1/strains", type=["indica", "sativa"], limit=100)
    commas = api.json("/api/v1/strains", type="indica,sativa", limit=100)
    assert repeated == commas
    assert {s["type"] for s in repeated["data"]} == {"indica", "sativa"}


@pytest.mark.parametrize(
    ("path", "params", "message"),
    [
        (
            "/api/v1/strains",
            {"efect": "relaxed"},
            "unknown parameter 'efect'; did you mean 'effect'?",
        ),
        ("/api/v1/strains", {"Limit": "2"}, "unknown parameter 'Limit'; did you mean 'limit'?"),
        (
            "/api/v1/dispensaries",
            {"zipcode": "10001"},
            "unknown parameter 'zipcode'; did you mean 'zip'?",
        ),
        ("/api/v1/deals", {"limit ": "2"}, "unknown parameter 'limit '; did you mean 'limit'?"),
        (
            "/api/v1/search",
            {"q": "kush", "colour": "green"},
            "unknown parameter 'colour'; this endpoint takes limit, offset, q, state, type",
        ),
        (
            "/api/v1/laws/CA",
            {"verbose": "1"},
            "unknown parameter 'verbose'; this endpoint takes no query parameters",
        ),
        (
            "/api/v1/strains/blue-dream",
            {"x": ""},
            "unknown parameter 'x'; this endpoint takes no query parameters",
        ),
        (
            "/api/v1/usage",
            {"full": "true"},
            "unknown parameter 'full'; this endpoint takes no query parameters",
        ),
    ],
)
def test_an_unknown_parameter_is_a_400_naming_it_and_the_one_meant(
    api, path: str, params: dict, message: str
) -> None:
    error = api.json(path, status=400, **params)["error"]
    assert error["message"] == message
    unknown = next(name for name in params if name != "q")
    assert error["param"] == unknown


def test_the_cache_buster_and_the_key_parameter_stay_allowed(api) -> None:
    assert api.json("/api/v1/strains", limit=3, _="1700000000")["meta"]["limit"] == 3
    assert api.json("/api/v1/laws/CA", _="1")["data"]["stateCode"] == "CA"
    response = api.get("/api/v1/strains", key="", api_key=api.key, limit=1, _="2")
    assert response.status_code == 200


def test_an_unknown_parameter_is_refused_after_the_key_is_checked(client) -> None:
    response = client.get("/api/v1/strains?efect=relaxed")
    assert response.status_code == 401
