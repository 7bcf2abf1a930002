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
    [
        "kush",
        "Gelato",
        "papaya",
        "og",
        "blue",
        "haze",
        "cookies",
        "Dr. K",
        "santa barbara",
        "off",
        "BUY ONE",
        "wellness",
        "an",
    ],
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


@pytest.mark.parametrize("name", ["Gelato", "Papaya", "Girl Scout Cookies", "OG Kush", "AK-47"])
def test_an_exact_strain_name_comes_first_even_when_longer_names_share_its_prefix(
    api, session: Session, name: str
) -> None:
    slug = session.scalar(select(Strain.slug).where(Strain.name == name))
    assert slug is not None, f"{name} is a strain in the tiny dataset"
    for q in (name, name.lower(), name.upper()):
        first = api.json("/api/v1/search", q=q)["data"][0]
        assert first == {"type": "strain", "name": name, "slug": slug}


def test_exact_names_of_every_kind_come_first(api, session: Session, reference_day: date) -> None:
    samples = [
        ("dispensary", session.scalar(select(Dispensary.name).order_by(Dispensary.id))),
        ("doctor", session.scalar(select(Doctor.name).order_by(Doctor.id.desc()))),
        (
            "deal",
            session.scalar(
                select(Deal.title).where(Deal.expires >= reference_day).order_by(Deal.id)
            ),
        ),
    ]
    for kind, name in samples:
        assert name is not None
        first = api.json("/api/v1/search", q=name)["data"][0]
        assert (first["type"], first["name"]) == (kind, name)


def test_a_whole_word_followed_by_punctuation_ranks_as_a_whole_word(
    api, reference_day: date, session: Session
) -> None:
    q = "concentrate"
    names = [item["name"] for item in _all(api, q=q, type="deals")]
    comma = "Happy hour: Buy one concentrate, get one half off"
    plural = "40% off all concentrates"
    active = {row.name for row in _rows(session, reference_day) if row.type == "deal"}
    assert {comma, plural} <= active
    assert names.index(comma) < names.index(plural)


def test_query_is_case_insensitive_and_trimmed(api) -> None:
    base = _all(api, q="kush")
    assert base
    assert _all(api, q="KUSH") == base
    assert _all(api, q="  Kush \t") == base


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


@pytest.mark.parametrize("plural", list(KINDS))
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
@pytest.mark.parametrize(
    ("given", "code", "q"), [("CA", "CA", "an"), ("tx", "TX", "an"), ("Ny", "NY", "ll")]
)
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


def test_state_and_type_combine_for_deals(api, session: Session, reference_day: date) -> None:
    items = _all(api, q="off", type="deals", state="ca")
    expected = _expected(session, reference_day, "off", kind="deal", state="CA")
    assert expected
    _assert_matches(items, expected)


def test_state_does_not_scope_a_strain_only_search(api) -> None:
    assert _all(api, q="kush", type="strains", state="WY") == _all(api, q="kush", type="strains")


@pytest.mark.parametrize("value", ["XX", "CAL", "", "1"])
def test_unknown_state_is_a_400_naming_state(api, value: str) -> None:
    assert _error(api, q="kush", state=value)["param"] == "state"


# --- deals ------------------------------------------------------------------------------------


def test_expired_deals_never_appear(api, session: Session, reference_day: date) -> None:
    expired = list(
        session.execute(select(Deal.public_id, Deal.title).where(Deal.expires < reference_day))
    )
    assert expired
    active = set(session.scalars(select(Deal.public_id).where(Deal.expires >= reference_day)))
    for public_id, title in expired[:8]:
        items = _all(api, q=title)
        deal_ids = {item["id"] for item in items if item["type"] == "deal"}
        assert public_id not in deal_ids
        assert deal_ids <= active
    for q in ("off", "one"):
        found = {item["id"] for item in _all(api, q=q, type="deals")}
        titled = set(
            session.scalars(select(Deal.public_id).where(func.lower(Deal.title).contains(q)))
        )
        assert found == titled & active
        assert titled - active, f"some expired deal mentions {q!r}, so exclusion is tested"


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
    [
        "%%",
        "__",
        "20%",
        "%off",
        "_0%",
        "o_f",
        "''",
        '""',
        "\\\\",
        "' OR 1=1--",
        "' OR '1'='1",
        "x%' OR name LIKE '%",
        "'; DROP TABLE strains;--",
        "[a-z]",
        "**",
        "Charlotte's",
    ],
)
def test_wildcards_quotes_and_sql_fragments_match_literally(
    api, session: Session, reference_day: date, q: str
) -> None:
    expected = _expected(session, reference_day, q)
    items = _all(api, q=q)
    _assert_matches(items, expected)
    assert all(q.lower() in item["name"].lower() for item in items)


def test_literal_matching_finds_percent_titles_but_wildcards_do_not_expand(
    api, session: Session, reference_day: date
) -> None:
    percent = _expected(session, reference_day, "0%")
    assert percent, "deal titles such as '20% off eighths' contain a percent sign"
    assert api.json("/api/v1/search", q="0%")["meta"]["total"] == len(percent)
    assert api.json("/api/v1/search", q="%off")["meta"]["total"] == 0
    assert api.json("/api/v1/search", q="' OR 1=1--")["meta"]["total"] == 0
    assert api.json("/api/v1/search", q="s'")["meta"]["total"] == len(
        _expected(session, reference_day, "s'")
    )


@pytest.mark.parametrize("q", ["a", " a ", "%", "\u00e9", "\t7\t"])
def test_a_query_of_one_character_is_a_400_naming_q(api, q: str) -> None:
    body = api.json("/api/v1/search", status=400, q=q)
    assert body["error"]["param"] == "q"
    assert body["error"]["message"] == (
        "q must be at least 2 characters (leading and trailing spaces do not count)"
    )


def test_sql_in_q_leaves_the_data_intact(api, session: Session) -> None:
    before = session.scalar(select(func.count()).select_from(Strain))
    api.json("/api/v1/search", q="'; DROP TABLE strains;--")
    api.json("/api/v1/search", q="x'); DELETE FROM strains; --")
    assert api.json("/api/v1/strains")["meta"]["total"] == before == 150
