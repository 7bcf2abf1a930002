"""Query.changes: the change feed over GraphQL, each change with its current object, its errors,
its cost, and answers that never hide a committed change."""

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import Engine

from seed.load import apply_dataset
from service import keys
from service.changes import make_cursor
from tests.feeds import seeded_engine, tiny_dataset, with_changes
from web.db import SESSIONS_EXTENSION

from .conftest import Gql, warm_up

PAGE = (
    "query($since: String, $types: [ChangeType!], $limit: Int) { changes(since: $since, "
    "types: $types, limit: $limit) { items { type id op at object { __typename id } } "
    "next hasMore asOf retentionDays } }"
)
TYPENAMES = {
    "STRAIN": "Strain",
    "DISPENSARY": "Dispensary",
    "DEAL": "Deal",
    "DOCTOR": "Doctor",
    "LAW": "Law",
}


def _page(gql: Gql, **variables: Any) -> dict[str, Any]:
    return gql.data(PAGE, variables)["changes"]


@pytest.mark.parametrize("kind", TYPENAMES)
def test_each_change_resolves_the_current_object_of_its_kind(gql: Gql, kind: str) -> None:
    page = _page(gql, types=[kind], limit=3)
    assert [item["type"] for item in page["items"]] == [kind] * 3
    assert [item["op"] for item in page["items"]] == ["UPSERT"] * 3
    assert [item["object"] for item in page["items"]] == [
        {"__typename": TYPENAMES[kind], "id": item["id"]} for item in page["items"]
    ]


def test_the_objects_are_the_records_the_detail_fields_give(gql: Gql) -> None:
    query = (
        "{ changes(types: [STRAIN, LAW], limit: 57) { items { id object { "
        "... on Strain { name thc } ... on Law { state recreational } } } } }"
    )
    items = gql.data(query)["changes"]["items"]
    strain, law = items[-1], items[0]
    detail = gql.data(
        "query($slug: String!, $code: String!) { strain(slug: $slug) { name thc } "
        "law(state: $code) { state recreational } }",
        {"slug": strain["id"], "code": law["id"]},
    )
    assert strain["object"] == detail["strain"]
    assert law["object"] == detail["law"]


def test_a_page_carries_the_cursor_and_the_feeds_state(gql: Gql, api) -> None:
    page = _page(gql, types=["LAW"], limit=2)
    rest = api.json("/api/v1/changes", types="law", limit=2)
    assert [item["id"] for item in page["items"]] == ["AK", "AL"]
    assert page["next"] == rest["meta"]["next"]
    assert (page["hasMore"], page["retentionDays"]) == (True, 30)
    assert page["asOf"] is not None
    assert page["items"][0]["at"] == page["asOf"]
    following = _page(gql, since=page["next"], types=["LAW"], limit=1)
    assert [item["id"] for item in following["items"]] == ["AR"]


def test_the_objects_of_a_page_take_one_statement_per_kind_at_any_size(
    app: Flask, api_keys: dict[str, str], count_statements
) -> None:
    warm_up(app, api_keys["pro"])
    client = app.test_client()
    query = (
        "query($n: Int) { changes(types: [STRAIN, DOCTOR], limit: $n) { items { object { id } } } }"
    )
    counts = []
    for limit in (5, 200):
        with count_statements(app) as seen:
            response = client.post(
                "/graphql",
                json={"query": query, "variables": {"n": limit}},
                headers={"X-API-Key": api_keys["pro"]},
            )
        assert "errors" not in response.get_json()
        counts.append(len(seen))
    # The feed's state and page; the strains; at 200 the doctors too.
    assert counts[1] == counts[0] + 1


@pytest.mark.parametrize(
    ("variables", "param"),
    [({"since": "nope"}, "since"), ({"types": []}, "types"), ({"limit": 0}, "limit")],
)
def test_bad_arguments_are_errors_naming_the_argument(
    gql: Gql, variables: dict[str, Any], param: str
) -> None:
    body = gql(PAGE, variables)
    assert body["data"] == {"changes": None}
    [error] = body["errors"]
    assert (error["extensions"]["code"], error["extensions"]["param"]) == (400, param)


def test_an_expired_cursor_is_an_error_with_code_410_and_reason_cursor_expired(gql: Gql) -> None:
    body = gql(PAGE, {"since": make_cursor("0badcafe", 3)})
    assert body["data"] == {"changes": None}
    [error] = body["errors"]
    assert error["extensions"] == {"code": 410, "reason": "cursor_expired", "param": "since"}
    assert error["message"].endswith(
        "start again without since to read the feed from the beginning"
    )
    assert error["path"] == ["changes"]


# --- cost ---------------------------------------------------------------------------------------


def _cost(gql: Gql, query: str) -> int:
    return gql(query)["extensions"]["cost"]["requested"]


@pytest.mark.parametrize("limit", [10, 1000])
def test_the_cost_counts_each_object_once_per_change_of_the_limit(
    gql: Gql, work, limit: int
) -> None:
    query = f"{{ changes(limit: {limit}) {{ items {{ id object {{ id }} }} }} }}"
    # changes 1; per change: items 1, id 1, object 1 and its id 1; the object's call per change
    # and one statement per kind for the page.
    expected = 1 + 4 * limit
    expected += work.field("Query", "changes") + work.field("Change", "object", limit)
    assert _cost(gql, query) == expected


def test_what_an_object_selects_is_counted_for_every_change(gql: Gql) -> None:
    plain = _cost(gql, "{ changes(limit: 200) { items { object { id } } } }")
    more = _cost(
        gql,
        "{ changes(limit: 200) { items { object { id ... on Strain { name thc cbd } } } } }",
    )
    assert more - plain == 200 * 3


def test_a_page_of_1000_objects_with_their_nested_lists_is_over_the_budget(gql: Gql) -> None:
    query = (
        "{ changes(limit: 1000) { items { object { ... on Dispensary { deals(limit: 20) "
        "{ title } } } } } }"
    )
    [error] = gql.errors(query)
    assert error["message"].startswith("Estimated query cost ")
    assert error["extensions"]["cost"]["requested"] > error["extensions"]["cost"]["budget"]


# --- a load commits between two requests ------------------------------------------------------


@pytest.fixture
def fed(
    tmp_path: Path, make_app: Callable[..., Flask], speed_tricks: None
) -> Iterator[tuple[Gql, Engine]]:
    """(gql, engine) on a database of its own, with the result cache and replay lane on and
    the data version kept a minute."""
    url = f"sqlite:///{tmp_path / 'fed.db'}"
    engine = seeded_engine(url, tiny_dataset())
    app = make_app(DATABASE_URL=url, STATE_TTL_MS=60_000)
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=100_000).plaintext
        db.commit()
    yield Gql(app.test_client(), key), engine
    engine.dispose()


def test_a_change_committed_within_the_version_cache_is_never_hidden(
    fed: tuple[Gql, Engine],
) -> None:
    gql, engine = fed
    since = _page(gql, limit=1000)["next"]
    assert _page(gql, since=since)["items"] == []
    assert _page(gql, since=since)["items"] == []  # a repeat: the result cache's chance
    changed, upserted, deleted = with_changes(tiny_dataset())
    apply_dataset(engine, changed)
    items = _page(gql, since=since)["items"]
    assert {(i["type"].lower(), i["id"]) for i in items} == upserted | deleted
    assert {i["id"]: i["object"] is None for i in items} == {
        **{key: False for _, key in upserted},
        **{key: True for _, key in deleted},
    }
    assert [i["op"] for i in items if i["object"] is None] == ["DELETE"]
