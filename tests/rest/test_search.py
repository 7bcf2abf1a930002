"""GET /api/v1/search (SPEC 2.7, 4.8): ranked, literal, scoped search over four kinds.

Expected results come from an independent oracle over every row's name: an item matches when
its name (a deal's title; active deals only) contains q in any case; rank 0 exact, 1 prefix,
2 whole word (words split at spaces and the documented separators), 3 any other substring;
ties by name, case-insensitively.
"""

from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Strain
from service.search import WORD_SEPARATORS

KINDS = {"strains": "strain", "dispensaries": "dispensary", "doctors": "doctor", "deals": "deal"}


@dataclass(frozen=True)
class Row:
    type: str
    key: str
    name: str
    state: str | None  # None for strains


def _rows(session: Session, today: date) -> list[Row]:
    rows = [Row("strain", k, n, None) for k, n in session.execute(select(Strain.slug, Strain.name))]
    rows += [
        Row("dispensary", k, n, s)
        for k, n, s in session.execute(
            select(Dispensary.public_id, Dispensary.name, Dispensary.state)
        )
    ]
    rows += [
        Row("doctor", k, n, s)
        for k, n, s in session.execute(select(Doctor.public_id, Doctor.name, Doctor.state))
    ]
    rows += [
        Row("deal", k, n, s)
        for k, n, s in session.execute(
            select(Deal.public_id, Deal.title, Dispensary.state)
            .join(Dispensary, Deal.dispensary_id == Dispensary.id)
            .where(Deal.expires >= today)
        )
    ]
    return rows


def _rank(q: str, name: str) -> int:
    q, name = q.lower(), name.lower()
    if name == q:
        return 0
    if name.startswith(q):
        return 1
    if f" {_words(q).strip()} " in f" {_words(name)} ":
        return 2
    return 3


def _words(text: str) -> str:
    return "".join(" " if char in WORD_SEPARATORS else char for char in text)


def _expected(
    session: Session, today: date, q: str, *, kind: str | None = None, state: str | None = None
) -> list[Row]:
    """Matching rows, best first (ties by name; order within equal names is not asserted)."""
    text = q.strip()
    hits = [
        row
        for row in _rows(session, today)
        if text.lower() in row.name.lower()
        and (kind is None or row.type == kind)
        and (state is None or row.state is None or row.state == state)
    ]
    return sorted(hits, key=lambda row: (_rank(text, row.name), row.name.lower(), row.name))


def _all(api, **params: Any) -> list[dict[str, Any]]:
    """Every hit, walking pages of 100."""
    items: list[dict[str, Any]] = []
    while True:
        body = api.json("/api/v1/search", limit=100, offset=len(items), **params)
        items.extend(body["data"])
        if len(items) >= body["meta"]["total"]:
            assert len(items) == body["meta"]["total"]
            return items


def _key(item: dict[str, Any]) -> tuple[str, str]:
    return item["type"], item["slug"] if item["type"] == "strain" else item["id"]


def _assert_matches(items: list[dict[str, Any]], expected: list[Row]) -> None:
    assert [item["name"] for item in items] == [row.name for row in expected]
    assert sorted(_key(item) for item in items) == sorted((row.type, row.key) for row in expected)


def _error(api, **params: Any) -> dict[str, Any]:
    body = api.json("/api/v1/search", status=400, **params)
    assert body["success"] is False
    assert body["error"]["code"] == 400
    return body["error"]


# --- ranking ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q",
    ["kush"],
)
def test_results_rank_exact_then_prefix_then_whole_word_then_substring_ties_by_name(
    api, session: Session, reference_day: date, q: str
) -> None:
    expected = _expected(session, reference_day, q)
    assert expected, f"{q!r} should match something in the tiny dataset"
    items = _all(api, q=q)
    _assert_matches(items, expected)
    ranks = [_rank(q, item["name"]) for item in items]
    assert ranks == sorted(ranks)
    for rank in set(ranks):
        names = [item["name"] for item, r in zip(items, ranks, strict=True) if r == rank]
        assert names == sorted(names, key=lambda name: (name.lower(), name))


# --- item shape -------------------------------------------------------------------------------


def test_items_have_type_name_and_slug_for_strains_or_id_otherwise_never_both(
    api, session: Session, reference_day: date
) -> None:
    by_key = {(row.type, row.key): row.name for row in _rows(session, reference_day)}
    items = _all(api, q="er")
    assert {item["type"] for item in items} == {"strain", "dispensary", "doctor", "deal"}
    for item in items:
        if item["type"] == "strain":
            assert list(item) == ["type", "name", "slug"]
        else:
            assert list(item) == ["type", "name", "id"]
            prefix = {"dispensary": "disp_", "doctor": "doc_", "deal": "deal_"}[item["type"]]
            assert item["id"].startswith(prefix)
        assert by_key[_key(item)] == item["name"]


# --- type and state scope ---------------------------------------------------------------------


@pytest.mark.parametrize("plural", ["deals"])
def test_type_restricts_results_to_one_kind(
    api, session: Session, reference_day: date, plural: str
) -> None:
    items = _all(api, q="er", type=plural)
    assert items
    assert {item["type"] for item in items} == {KINDS[plural]}
    _assert_matches(items, _expected(session, reference_day, "er", kind=KINDS[plural]))


@pytest.mark.parametrize("value", ["strain", "all", "", "people", "strains,deals", "laws"])
def test_unknown_search_type_is_a_400_naming_type(api, value: str) -> None:
    assert _error(api, q="kush", type=value)["param"] == "type"


# Each query matches all four kinds in its state in the tiny dataset.
@pytest.mark.parametrize(("given", "code", "q"), [("tx", "TX", "an")])
def test_state_scopes_dispensaries_doctors_and_deals_but_not_strains(
    api, session: Session, reference_day: date, given: str, code: str, q: str
) -> None:
    items = _all(api, q=q, state=given)
    expected = _expected(session, reference_day, q, state=code)
    _assert_matches(items, expected)
    rows = {(row.type, row.key): row for row in _rows(session, reference_day)}
    kinds = {item["type"] for item in items}
    assert kinds == {"strain", "dispensary", "doctor", "deal"}
    for item in items:
        if item["type"] != "strain":
            assert rows[_key(item)].state == code
    unscoped_strains = [i for i in _all(api, q=q) if i["type"] == "strain"]
    assert [i for i in items if i["type"] == "strain"] == unscoped_strains


@pytest.mark.parametrize("value", ["XX", "CAL", "", "1"])
def test_unknown_state_is_a_400_naming_state(api, value: str) -> None:
    assert _error(api, q="kush", state=value)["param"] == "state"


# --- query validation and literal matching ----------------------------------------------------


def test_missing_q_is_a_400_naming_q(api) -> None:
    error = _error(api)
    assert error["param"] == "q"
    assert "q" in error["message"]


@pytest.mark.parametrize("value", ["", " ", "   \t ", "x" * 201, " " + "y" * 201, "ab\x00c"])
def test_blank_overlong_or_nul_q_is_a_400_naming_q(api, value: str) -> None:
    assert _error(api, q=value)["param"] == "q"


def test_q_of_exactly_200_characters_is_accepted(api) -> None:
    body = api.json("/api/v1/search", q="k" * 200)
    assert body == {"success": True, "data": [], "meta": {"total": 0, "limit": 20, "offset": 0}}
    padded = api.json("/api/v1/search", q="   " + "k" * 200 + "   ")
    assert padded["meta"]["total"] == 0


@pytest.mark.parametrize(
    "q",
    ["' OR 1=1--"],
)
def test_wildcards_quotes_and_sql_fragments_match_literally(
    api, session: Session, reference_day: date, q: str
) -> None:
    expected = _expected(session, reference_day, q)
    items = _all(api, q=q)
    _assert_matches(items, expected)
    assert all(q.lower() in item["name"].lower() for item in items)


@pytest.mark.parametrize("q", ["a", " A ", "k", "%", "$", "\u00e9", "\t7\t", "z"])
def test_a_query_of_one_character_ranks_like_any_query(
    api, session: Session, reference_day: date, q: str
) -> None:
    # What a search-as-you-type box sends first: exact, prefix, whole word, then substring.
    expected = _expected(session, reference_day, q)
    items = _all(api, q=q)
    _assert_matches(items, expected)
    if q.strip() in ("a", "k"):
        assert len(items) > 20  # a common letter: several pages, walked to the end


@pytest.mark.parametrize(("kind", "state"), [("deals", None), ("dispensaries", "CA"), (None, "NY")])
def test_a_query_of_one_character_keeps_its_type_and_state(
    api, session: Session, reference_day: date, kind: str | None, state: str | None
) -> None:
    params = {key: value for key, value in (("type", kind), ("state", state)) if value}
    expected = _expected(session, reference_day, "e", kind=KINDS.get(kind), state=state)
    _assert_matches(_all(api, q="e", **params), expected)


def test_sql_in_q_leaves_the_data_intact(api, session: Session) -> None:
    before = session.scalar(select(func.count()).select_from(Strain))
    api.json("/api/v1/search", q="'; DROP TABLE strains;--")
    api.json("/api/v1/search", q="x'); DELETE FROM strains; --")
    assert api.json("/api/v1/strains")["meta"]["total"] == before == 150
