"""GET /api/v1/changes: the envelope, parameters, errors, ETags and quota of the change feed."""

import base64
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Engine

from rest.accel.dumping import reference_dump
from rest.changes import ChangeSchema
from seed import Dataset
from seed.load import apply_dataset
from service import keys
from service.changes import make_cursor, read_cursor
from tests.conftest import Api
from tests.feeds import seeded_engine, served_ids, set_feed_state, tiny_dataset, with_changes
from web.db import SESSIONS_EXTENSION

PATH = "/api/v1/changes"
INSTANT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
HREFS = {
    "strain": "/api/v1/strains/",
    "dispensary": "/api/v1/dispensaries/",
    "deal": "/api/v1/deals/",
    "doctor": "/api/v1/doctors/",
    "law": "/api/v1/laws/",
}


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    """What the shared tiny database holds (same seed, same day)."""
    return tiny_dataset()


def _read_all(get: Callable[..., dict[str, Any]], **params: Any) -> tuple[list[dict], str]:
    """Every item from the beginning (or ``since``), following next; and the last next."""
    items: list[dict] = []
    while True:
        body = get(**params)
        items += body["data"]
        params["since"] = body["meta"]["next"]
        if not body["meta"]["has_more"]:
            return items, body["meta"]["next"]


def test_a_page_has_exactly_the_envelope_and_fields_of_the_feed(api: Api) -> None:
    body = api.json(PATH, types="law", limit=2)
    assert list(body) == ["success", "data", "meta"]
    assert body["success"] is True
    assert [list(item) for item in body["data"]] == [["type", "id", "op", "at", "href"]] * 2
    assert [(i["type"], i["id"], i["op"], i["href"]) for i in body["data"]] == [
        ("law", "AK", "upsert", "/api/v1/laws/AK"),
        ("law", "AL", "upsert", "/api/v1/laws/AL"),
    ]
    meta = body["meta"]
    assert list(meta) == ["next", "has_more", "as_of", "retention_days"]
    assert (meta["has_more"], meta["retention_days"]) == (True, 30)
    assert INSTANT.match(meta["as_of"])
    assert body["data"][0]["at"] == meta["as_of"]  # the first load stamped everything
    assert read_cursor(meta["next"])[1] == 2


def test_reading_from_the_beginning_gives_every_object_once_with_its_href(
    api: Api, dataset: Dataset
) -> None:
    items, _ = _read_all(lambda **p: api.json(PATH, **p), limit=1000)
    assert {(i["type"], i["id"]) for i in items} == served_ids(dataset)
    assert len(items) == len(served_ids(dataset))
    assert all(i["href"] == HREFS[i["type"]] + i["id"] for i in items)
    # Each href answers the object it names.
    for item in (items[0], items[60], items[300]):
        assert api.get(item["href"]).status_code == 200


def test_paging_with_next_gives_each_object_once_in_commit_order(api: Api) -> None:
    paged, last = _read_all(lambda **p: api.json(PATH, **p), limit=97)
    whole = api.json(PATH, limit=1000)["data"]
    assert paged == whole
    assert read_cursor(last)[1] == len(whole)


def test_types_keep_only_those_kinds(api: Api) -> None:
    items, _ = _read_all(lambda **p: api.json(PATH, **p), types="doctor,law", limit=1000)
    assert [i["type"] for i in items] == ["law"] * 56 + ["doctor"] * 60
    repeated = api.json(PATH, types=["doctor", "law"], limit=1000)["data"]
    assert repeated == items


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"since": "nope"}, "since"),
        ({"since": ""}, "since"),
        ({"types": "strains"}, "types"),
        ({"types": ""}, "types"),
        ({"types": "law,,deal"}, "types"),
        ({"limit": "0"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": "2.5"}, "limit"),
        ({"offset": "10"}, "offset"),
    ],
)
def test_bad_parameters_are_a_400_naming_the_parameter(
    api: Api, params: dict[str, str], param: str
) -> None:
    body = api.json(PATH, status=400, **params)
    assert body["error"]["param"] == param
    assert body["error"]["code"] == 400
    assert "reason" not in body["error"]


def test_a_limit_over_1000_is_reduced_to_it(api: Api) -> None:
    assert len(api.json(PATH, limit=5000)["data"]) == 536


def test_an_expired_cursor_is_a_410_with_reason_cursor_expired(api: Api) -> None:
    since = make_cursor("0badcafe", 10)  # another log's
    body = api.json(PATH, status=410, since=since)
    assert body == {
        "success": False,
        "error": {
            "code": 410,
            "message": "this cursor has expired: the feed no longer holds every change after it "
            "(the log was started again, or deletions older than 30 days were dropped); start "
            "again without since to read the feed from the beginning",
            "docs": "/docs/errors#error-410",
            "param": "since",
            "reason": "cursor_expired",
        },
    }


def test_a_cursor_past_the_end_is_a_400_naming_since(api: Api) -> None:
    epoch = read_cursor(api.json(PATH, limit=1)["meta"]["next"])[0]
    body = api.json(PATH, status=400, since=make_cursor(epoch, 10_000))
    assert body["error"]["param"] == "since"


def test_a_request_costs_one_unit_whatever_its_length(make_app: Callable[..., Flask]) -> None:
    app = make_app()
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier="free", name="feed quota").plaintext
        db.commit()
    client = app.test_client()
    remaining = [
        int(
            client.get(PATH, query_string={"limit": n}, headers={"X-API-Key": key}).headers[
                "X-RateLimit-Remaining"
            ]
        )
        for n in (1000, 1000, 5)
    ]
    assert remaining == [99, 98, 97]


def test_a_matching_if_none_match_gets_a_304(api: Api) -> None:
    first = api.get(PATH, limit=3)
    tag = first.headers["ETag"]
    again = api.client.get(
        PATH, query_string={"limit": 3}, headers={"X-API-Key": api.key, "If-None-Match": tag}
    )
    assert (again.status_code, again.headers["ETag"]) == (304, tag)
    other = api.client.get(
        PATH, query_string={"limit": 4}, headers={"X-API-Key": api.key, "If-None-Match": tag}
    )
    assert other.status_code == 200


# --- a load commits between two requests ------------------------------------------------------


@dataclass
class Fed:
    """An app on a database of its own, its engine (for loads), a key and the dataset."""

    app: Flask
    client: FlaskClient
    engine: Engine
    key: str
    dataset: Dataset

    def get(self, **params: Any) -> Any:
        return self.client.get(PATH, query_string=params, headers={"X-API-Key": self.key})


@pytest.fixture
def fed(tmp_path: Path, make_app: Callable[..., Flask], speed_tricks: None) -> Iterator[Fed]:
    """Speed tricks on (replay lane, result cache) and the data version kept a minute: only
    the feed's own validator can tell that a load has committed."""
    dataset = tiny_dataset()
    url = f"sqlite:///{tmp_path / 'fed.db'}"
    engine = seeded_engine(url, dataset)
    app = make_app(DATABASE_URL=url, STATE_TTL_MS=60_000)
    with app.extensions[SESSIONS_EXTENSION]() as db:
        key = keys.create_key(db, tier="enterprise", hourly_limit=100_000).plaintext
        db.commit()
    yield Fed(app, app.test_client(), engine, key, dataset)
    engine.dispose()


def test_a_change_committed_within_the_version_cache_is_never_hidden(fed: Fed) -> None:
    items, since = _read_all(lambda **p: fed.get(**p).get_json(), limit=1000)
    assert len(items) == 536
    before = fed.get(since=since)
    tag = before.headers["ETag"]
    assert before.get_json()["data"] == []
    assert fed.get(since=since).get_json()["data"] == []  # a repeat (the replay lane's chance)
    changed, upserted, deleted = with_changes(fed.dataset)
    apply_dataset(fed.engine, changed)
    revalidated = fed.client.get(
        PATH, query_string={"since": since}, headers={"X-API-Key": fed.key, "If-None-Match": tag}
    )
    assert revalidated.status_code == 200
    assert revalidated.headers["ETag"] != tag
    found = {(i["type"], i["id"]): i for i in revalidated.get_json()["data"]}
    assert set(found) == upserted | deleted
    again = fed.get(since=since).get_json()["data"]
    assert {(i["type"], i["id"]) for i in again} == upserted | deleted


def test_a_deletion_has_op_delete_and_no_href(fed: Fed) -> None:
    _, since = _read_all(lambda **p: fed.get(**p).get_json(), limit=1000)
    changed, _, deleted = with_changes(fed.dataset)
    apply_dataset(fed.engine, changed)
    items = fed.get(since=since, types="deal").get_json()["data"]
    assert len(items) == 1
    assert list(items[0]) == ["type", "id", "op", "at"]
    assert ((items[0]["type"], items[0]["id"]), items[0]["op"]) == (deleted.pop(), "delete")
    # Written as they are (rest.fields.Rendered): exactly what the published schema dumps.
    both = fed.get(since=since).get_json()["data"]
    assert reference_dump(ChangeSchema(), both, many=True) == both
    assert fed.get(since=since).get_json()["meta"]["as_of"] == items[0]["at"]


def test_a_cursor_from_before_a_new_log_answers_410(fed: Fed) -> None:
    since = fed.get(limit=5).get_json()["meta"]["next"]
    set_feed_state(fed.engine, epoch="0badcafe")
    response = fed.get(since=since)
    assert response.status_code == 410
    assert response.get_json()["error"]["reason"] == "cursor_expired"


def test_the_cursor_is_base64url_text(api: Api) -> None:
    cursor = api.json(PATH, limit=1)["meta"]["next"]
    assert re.fullmatch(r"[A-Za-z0-9_-]+", cursor)
    assert base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).startswith(b"1.")
