"""REST and GraphQL give the same lineage, the same batch on the shelf and the same strain's
dispensaries by price per gram and batch THC, and refuse the same values naming the same
parameter (GraphQL spelling it in camelCase)."""

from typing import Any

import pytest
from flask.testing import FlaskClient

SLUGS = ("wedding-cake", "og-kush", "girl-scout-cookies", "blue-dream", "acapulco-gold")


class Both:
    def __init__(self, client: FlaskClient, key: str) -> None:
        self.client = client
        self.key = key

    def rest(self, path: str, **params: Any) -> tuple[int, dict[str, Any]]:
        response = self.client.get(path, query_string=params, headers={"X-API-Key": self.key})
        return response.status_code, response.get_json()

    def graphql(self, query: str) -> dict[str, Any]:
        response = self.client.post(
            "/graphql", json={"query": query}, headers={"X-API-Key": self.key}
        )
        assert response.status_code == 200
        return response.get_json()


@pytest.fixture
def both(client: FlaskClient, api_keys: dict[str, str]) -> Both:
    return Both(client, api_keys["enterprise"])


def _lab_as_graphql(lab: dict[str, Any] | None) -> dict[str, Any] | None:
    """REST's lab object in GraphQL's names and enum spelling."""
    if lab is None:
        return None
    return {
        "batchId": lab["batch_id"],
        "testedAt": lab["tested_at"],
        "lab": lab["lab"],
        "coaUrl": lab["coa_url"],
        "results": [
            {
                "key": r["key"],
                "value": r["value"],
                "unit": r["unit"],
                "qualifier": r["qualifier"].upper() if "qualifier" in r else None,
            }
            for r in lab["results"]
        ],
        "totalThc": lab["total_thc"],
        "totalCbd": lab["total_cbd"],
    }


LAB = "lab { batchId testedAt lab coaUrl results { key value unit qualifier } totalThc totalCbd }"


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("direction", ["ancestors", "descendants"])
@pytest.mark.parametrize("depth", [1, 3])
def test_the_same_lineage(both: Both, slug: str, direction: str, depth: int) -> None:
    status, body = both.rest(f"/api/v1/strains/{slug}/lineage", direction=direction, depth=depth)
    assert status == 200
    answer = both.graphql(
        f'{{ lineage(slug: "{slug}", direction: {direction.upper()}, depth: {depth}) '
        "{ root nodes { slug name depth } edges { child parent } truncated } }"
    )
    assert answer["data"]["lineage"] == body["data"]


def test_the_same_menu_batches_and_prices_per_gram(both: Both) -> None:
    for public_id in ("disp_1001", "disp_1004", "disp_1060"):
        _, body = both.rest(f"/api/v1/dispensaries/{public_id}")
        answer = both.graphql(
            f'{{ dispensary(id: "{public_id}") {{ menu {{ name pricePerGram {LAB} }} }} }}'
        )
        menu = answer["data"]["dispensary"]["menu"]
        assert menu == [
            {
                "name": item["name"],
                "pricePerGram": item["price_per_gram"],
                "lab": _lab_as_graphql(item["lab"]),
            }
            for item in body["data"]["menu"]
        ]


@pytest.mark.parametrize(
    ("rest", "graphql"),
    [
        ({"sort": "price_per_gram"}, "sort: PRICE_PER_GRAM"),
        ({"total_thc_min": "19"}, "totalThcMin: 19"),
        (
            {"total_thc_min": "15", "sort": "price_per_gram"},
            "totalThcMin: 15, sort: PRICE_PER_GRAM",
        ),
        ({"total_thc_min": "15", "state": "CO"}, 'totalThcMin: 15, state: "CO"'),
    ],
)
def test_the_same_shelf_of_a_strain(both: Both, rest: dict, graphql: str) -> None:
    _, body = both.rest("/api/v1/strains/og-kush/dispensaries", limit=100, **rest)
    answer = both.graphql(
        f'{{ strain(slug: "og-kush") {{ dispensaries({graphql}, limit: 100) '
        f"{{ id price unit pricePerGram {LAB} }} }} }}"
    )
    shown = answer["data"]["strain"]["dispensaries"]
    assert shown == [
        {
            "id": item["id"],
            "price": item["price"],
            "unit": item["unit"],
            "pricePerGram": item["price_per_gram"],
            "lab": _lab_as_graphql(item["lab"]),
        }
        for item in body["data"]
    ]
    assert len(shown) == body["meta"]["total"] > 0


@pytest.mark.parametrize(
    ("path", "params", "query", "param"),
    [
        (
            "/api/v1/strains/og-kush/lineage",
            {"depth": "4"},
            '{ lineage(slug: "og-kush", depth: 4) { root } }',
            ("depth", "depth"),
        ),
        (
            "/api/v1/strains/og-kush/lineage",
            {"depth": "0"},
            '{ lineage(slug: "og-kush", depth: 0) { root } }',
            ("depth", "depth"),
        ),
        (
            "/api/v1/strains/og-kush/dispensaries",
            {"total_thc_min": "101"},
            '{ strain(slug: "og-kush") { dispensaries(totalThcMin: 101) { id } } }',
            ("total_thc_min", "totalThcMin"),
        ),
        (
            "/api/v1/strains/og-kush/dispensaries",
            {"total_thc_min": "-1"},
            '{ strain(slug: "og-kush") { dispensaries(totalThcMin: -1) { id } } }',
            ("total_thc_min", "totalThcMin"),
        ),
    ],
)
def test_the_same_refusals(
    both: Both, path: str, params: dict, query: str, param: tuple[str, str]
) -> None:
    status, body = both.rest(path, **params)
    assert status == 400
    assert body["error"]["param"] == param[0]
    (error,) = both.graphql(query)["errors"]
    assert error["extensions"] == {"code": 400, "param": param[1]}
    assert error["message"] == body["error"]["message"].replace(param[0], param[1])


def test_an_unknown_strain_is_a_404_and_a_null(both: Both) -> None:
    status, _ = both.rest("/api/v1/strains/no-such-strain/lineage")
    assert status == 404
    answer = both.graphql('{ lineage(slug: "no-such-strain") { root } }')
    assert answer["data"] == {"lineage": None}
    assert "errors" not in answer
