"""GET /api/v1/strains/{slug}/lineage on the shared tiny dataset: the answer of every strain at
every depth both ways (against tests/lineages.py's walk of the generated rows), the defaults,
the refusals that name their parameter, 404, and the route's key, quota and ETag."""

from datetime import date

import pytest
from flask.testing import FlaskClient

from seed import Dataset, generate
from tests.conftest import TINY_SEED, Api
from tests.lineages import as_json, expected_lineage

PATH = "/api/v1/strains/{slug}/lineage"


@pytest.fixture(scope="module")
def dataset(reference_day: date) -> Dataset:
    return generate(scale="tiny", seed=TINY_SEED, today=reference_day)


@pytest.fixture
def walker(client: FlaskClient, api_keys: dict[str, str]) -> Api:
    """The enterprise key: the walk over the strains is many requests."""
    return Api(client, api_keys["enterprise"])


@pytest.mark.parametrize("direction", ["ancestors", "descendants"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_every_strains_lineage_is_the_walk_of_its_parent_links(
    walker, dataset: Dataset, direction: str, depth: int
) -> None:
    shown = 0
    for strain in dataset.strains[::3]:
        body = walker.json(PATH.format(slug=strain["slug"]), direction=direction, depth=str(depth))
        assert list(body) == ["success", "data"]  # a detail: no meta
        expected = expected_lineage(dataset, strain["id"], direction == "ancestors", depth)
        assert body["data"] == as_json(expected, strain["slug"]), strain["slug"]
        shown += len(body["data"]["nodes"])
    assert shown > 0


def test_the_defaults_are_the_parents(api, dataset: Dataset) -> None:
    child = next(s for s in dataset.strains if s["name"] == "Wedding Cake")
    data = api.json(PATH.format(slug="wedding-cake"))["data"]
    assert data == as_json(expected_lineage(dataset, child["id"], True, 1), "wedding-cake")
    assert data["nodes"] == [
        {"slug": "cherry-pie", "name": "Cherry Pie", "depth": 1},
        {"slug": "girl-scout-cookies", "name": "Girl Scout Cookies", "depth": 1},
    ]
    assert data["edges"] == [
        {"child": "wedding-cake", "parent": "cherry-pie"},
        {"child": "wedding-cake", "parent": "girl-scout-cookies"},
    ]
    assert list(data) == ["root", "nodes", "edges", "truncated"]


def test_direction_is_read_in_any_case_and_the_slug_too(api) -> None:
    lower = api.json(PATH.format(slug="og-kush"), direction="descendants")["data"]
    upper = api.json(PATH.format(slug="OG-Kush"), direction=" DESCENDANTS ")["data"]
    assert upper == lower
    assert {"child": "girl-scout-cookies", "parent": "og-kush"} in lower["edges"]


@pytest.mark.parametrize(
    ("params", "param", "message"),
    [
        ({"depth": "4"}, "depth", "depth must be an integer from 1 to 3"),
        ({"depth": "0"}, "depth", "depth must be an integer from 1 to 3"),
        ({"depth": "-1"}, "depth", "depth must be an integer from 1 to 3"),
        ({"depth": "abc"}, "depth", "depth must be an integer from 1 to 3"),
        ({"depth": "1e9"}, "depth", "depth must be an integer from 1 to 3"),
        ({"depth": "2.5"}, "depth", "depth must be an integer from 1 to 3"),
        ({"depth": "NaN"}, "depth", "depth must be an integer from 1 to 3"),
        ({"depth": ""}, "depth", "depth must be an integer from 1 to 3"),
        (
            {"direction": "sideways"},
            "direction",
            "direction must be one of: ancestors, descendants",
        ),
        ({"direction": ""}, "direction", "direction must be one of: ancestors, descendants"),
        ({"generations": "2"}, "generations", "unknown parameter 'generations'"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(api, params: dict, param: str, message: str) -> None:
    error = api.json(PATH.format(slug="og-kush"), status=400, **params)["error"]
    assert error["param"] == param
    assert error["message"].startswith(message)


def test_a_repeated_parameter_is_a_400(api) -> None:
    response = api.client.get(
        PATH.format(slug="og-kush") + "?depth=1&depth=2", headers={"X-API-Key": api.key}
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["param"] == "depth"


@pytest.mark.parametrize("slug", ["no-such-strain", "Not A Slug", "x" * 300])
def test_an_unknown_strain_is_a_404(api, slug: str) -> None:
    error = api.json(PATH.format(slug=slug), status=404)["error"]
    assert error["code"] == 404


def test_the_route_needs_a_key_is_charged_and_answers_304_to_its_etag(api) -> None:
    path = PATH.format(slug="og-kush")
    assert api.get(path, key="").status_code == 401
    first = api.get(path, depth="2")
    assert first.status_code == 200
    assert "X-RateLimit-Remaining" in first.headers
    again = api.client.get(
        path,
        query_string={"depth": "2"},
        headers={"X-API-Key": api.key, "If-None-Match": first.headers["ETag"]},
    )
    assert again.status_code == 304
