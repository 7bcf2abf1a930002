"""The chemistry and lineage of a strain and the strain list's chemistry and parent filters give
the same answers over REST and GraphQL (issue 38): the same strains in the same order, the same
totals, the same chemistry (camelCase, enum words upper case) and the same errors."""

import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.contract.test_transports import Transports

# REST's parameter -> GraphQL's argument, and how its value is written there.
NAMES = {
    "dominant_terpene": "dominantTerpene",
    "cbg_min": "cbgMin",
    "cbn_min": "cbnMin",
    "thcv_min": "thcvMin",
    "cbc_min": "cbcMin",
    "thc_min": "thcMin",
}
PLURALS = {
    "terpene": "terpenes",
    "dominant_terpene": "dominantTerpenes",
    "ratio": "ratios",
    "type": "types",
}
ENUMS = {"terpene", "dominant_terpene", "ratio", "type"}
NUMBERS = {"cbg_min", "cbn_min", "thcv_min", "cbc_min", "thc_min", "limit", "offset"}


def _literal(name: str, value: str) -> str:
    if name in ENUMS:
        return value.upper()
    if name in NUMBERS:
        return value
    return '"' + value + '"'


def _arguments(params: dict[str, str]) -> str:
    parts = []
    for name, value in params.items():
        if "," in value:
            values = ", ".join(_literal(name, v) for v in value.split(","))
            parts.append(f"{PLURALS[name]}: [{values}]")
        else:
            parts.append(f"{NAMES.get(name, name)}: {_literal(name, value)}")
    return "(" + ", ".join(parts) + ")"


@pytest.fixture
def both(client: FlaskClient, api_keys: dict) -> Transports:
    return Transports(client, api_keys["enterprise"])


CASES = [
    {"terpene": "myrcene"},
    {"terpene": "linalool,bisabolol", "limit": "100"},
    {"dominant_terpene": "caryophyllene", "type": "indica,hybrid"},
    {"dominant_terpene": "limonene,pinene"},
    {"ratio": "balanced,cbd_dominant"},
    {"ratio": "thc_dominant", "thc_min": "20", "offset": "3", "limit": "7"},
    {"cbg_min": "0.8"},
    {"cbn_min": "0.2", "effect": "relaxed"},
    {"thcv_min": "0.1", "flavor": "earthy"},
    {"cbc_min": "0.3"},
    {"parent": "girl-scout-cookies"},
    {"parent": "blueberry", "ratio": "thc_dominant"},
]


@pytest.mark.parametrize("params", CASES, ids=lambda p: "&".join(f"{k}={v}" for k, v in p.items()))
def test_the_chemistry_filters_give_the_same_strains_and_meta(
    both: Transports, params: dict[str, str]
) -> None:
    rest, gql = both.list_both("strains", params, arguments=_arguments(params))
    assert rest == gql
    assert rest[1] > 0, "the case should match something"


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _as_graphql(value: Any, key: str = "") -> Any:
    """A REST object as GraphQL shows it: keys camelCase, enum words upper case."""
    if isinstance(value, dict):
        return {_camel(k): _as_graphql(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_graphql(v, key) for v in value]
    if key in ("key", "dominant_terpene", "ratio", "basis", "origin") and value is not None:
        return value.upper()
    return value


GRAPHQL_DETAIL = """
dominantTerpene ratio
chemistry {
  basis sampleCount source
  cannabinoids { key name unit p25 p50 p75 }
  terpenes { key name unit p25 p50 p75 }
  totalThc { p25 p50 p75 formula } totalCbd { p25 p50 p75 formula }
  totalTerpenes { p25 p50 p75 } dominantTerpene ratio
}
lineage { origin parents { slug name } childrenCount }
"""


@pytest.mark.parametrize(
    "slug", ["blue-dream", "girl-scout-cookies", "ozark-daze", "rocky-mountain-sage", "acdc"]
)
def test_a_strains_chemistry_and_lineage_are_the_same_over_both(
    both: Transports, slug: str
) -> None:
    rest = both.rest(f"/api/v1/strains/{slug}", {})["data"]
    gql = both.graphql(f'{{ strain(slug: "{slug}") {{ {GRAPHQL_DETAIL} }} }}')["data"]["strain"]
    shown = {k: rest[k] for k in ("dominant_terpene", "ratio", "chemistry", "lineage")}
    assert gql == _as_graphql(shown)


def test_the_compounds_are_the_same_over_both(both: Transports) -> None:
    rest = both.rest("/api/v1/compounds", {})
    gql = both.graphql("{ compounds { key name kind aliases } }")["data"]["compounds"]
    assert gql == [{**_as_graphql(c), "kind": c["kind"].upper()} for c in rest["data"]]
    assert rest["meta"]["total"] == len(gql) == 18


ERRORS = [
    ({"cbg_min": "101"}, "cbg_min"),
    ({"cbn_min": "-1"}, "cbn_min"),
    ({"thcv_min": "1e308"}, "thcv_min"),
    ({"parent": "not_a_slug"}, "parent"),
    ({"terpene": ",".join(["myrcene"] * 11)}, "terpene"),
]


@pytest.mark.parametrize(("params", "param"), ERRORS)
def test_a_bad_chemistry_filter_fails_alike_naming_the_argument(
    both: Transports, params: dict[str, str], param: str
) -> None:
    rest = both.rest("/api/v1/strains", params)
    gql = both.graphql(f"{{ strains{_arguments(params)} {{ total }} }}")
    assert rest["status"] == 400
    assert rest["error"]["param"] == param
    [error] = gql["errors"]
    plural = "," in next(iter(params.values()))
    gql_param = PLURALS[param] if plural else NAMES.get(param, param)
    expected = re.sub(rf"\b{param}\b", gql_param, rest["error"]["message"])
    assert error["message"] == expected
    assert error["extensions"] == {**error["extensions"], "code": 400, "param": gql_param}
