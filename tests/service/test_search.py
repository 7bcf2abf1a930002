"""service.search.search on the shared tiny dataset: matching, rank order, scope, "today".

Expected hits come from the generated dataset in plain Python: every strain, dispensary, doctor
and (while active on ``today``) deal title whose lower-case name contains the query; a state
keeps strains and the other kinds in that state (a deal's state is its dispensary's); ranked
exact name, then prefix, then whole word (words split at spaces and ``,.;:!?'"()[]/&+-``), then
any other substring; ties by lower-case name, name, kind, key. Two-character queries and longer
ones run through different indexes; both are checked. Queries whose text no name contains
(where the similar-name fallback applies) are left to test_search_index.py.
"""

from datetime import date, timedelta
from typing import Any

import pytest
from sqlalchemy import Connection

from seed import Dataset
from service.errors import InvalidParameter
from service.filters import SearchQuery
from service.paging import PageRequest
from service.search import SearchHit, search
from tests.service.pages import walk

SEPARATORS = ",.;:!?'\"()[]/&+-"
KINDS = {"strains": "strain", "dispensaries": "dispensary", "doctors": "doctor", "deals": "deal"}

Hit = tuple[str, str, str]  # kind, key, name


def _entries(dataset: Dataset, today: date) -> list[tuple[str, str, str, str | None]]:
    """(kind, key, name, state) of everything searchable on ``today``."""
    shops = {shop["id"]: shop for shop in dataset.dispensaries}
    return [
        *(("strain", s["slug"], s["name"], None) for s in dataset.strains),
        *(("dispensary", s["public_id"], s["name"], s["state"]) for s in dataset.dispensaries),
        *(("doctor", d["public_id"], d["name"], d["state"]) for d in dataset.doctors),
        *(
            ("deal", d["public_id"], d["title"], shops[d["dispensary_id"]]["state"])
            for d in dataset.deals
            if d["expires"] >= today
        ),
    ]


def _words(text: str) -> str:
    return f" {''.join(' ' if c in SEPARATORS else c for c in text.lower()).strip()} "


def _rank(needle: str, name: str) -> int:
    folded = name.lower()
    if folded == needle:
        return 0
    if folded.startswith(needle):
        return 1
    return 2 if _words(needle) in _words(name) else 3


def _expected(
    dataset: Dataset, today: date, q: str, *, type: str | None = None, state: str | None = None
) -> list[Hit]:
    needle = q.strip().lower()
    hits = [
        (kind, key, name)
        for kind, key, name, where in _entries(dataset, today)
        if needle in name.lower()
        and (type is None or kind == KINDS[type])
        and (state is None or where is None or where == state)
    ]
    return sorted(hits, key=lambda h: (_rank(needle, h[2]), h[2].lower(), h[2], h[0], h[1]))


def _hits(rows: list[SearchHit]) -> list[Hit]:
    return [(hit.type, hit.key, hit.name) for hit in rows]


def _names(hits: list[Hit]) -> list[str]:
    return [name for _, _, name in hits]


def _all(db: Connection, today: date, **query: Any) -> list[Hit]:
    chosen = SearchQuery.create(**query)
    return _hits(walk(lambda page: search(db, chosen, page, today=today)))


# Two-character queries read the pairs table; longer ones the text index.
QUERIES = [
    "co",
    "an",
    "og",
    "dr",
    "er",
    "kush",
    "gelato",
    "off",
    "pre-roll",
    "cannabis",
    "og kush",
    "Gelato",
    "papaya",
    "haze",
    "cookies",
    "BUY ONE",
    "wellness",
    "dr. a",
    "green",
]


@pytest.mark.parametrize("q", QUERIES)
def test_hits_are_every_name_containing_the_query_in_rank_then_name_order(
    db: Connection, dataset: Dataset, reference_day: date, q: str
) -> None:
    expected = _expected(dataset, reference_day, q)
    assert expected
    assert _all(db, reference_day, q=q) == expected


@pytest.mark.parametrize("q", ["co", "an", "e", "s"])
@pytest.mark.parametrize("query", [{}, {"state": "CA"}, {"type": "dispensaries"}])
def test_short_queries_page_in_rank_then_name_order_a_few_hits_at_a_time(
    db: Connection, dataset: Dataset, reference_day: date, q: str, query: dict[str, str]
) -> None:
    """One- and two-character queries walk their pieces' rows: each window of 7 must be the
    next 7 of the whole order, not the first 7 of some other order sorted again."""
    expected = _expected(dataset, reference_day, q, **query)
    assert len(expected) > 14
    chosen = SearchQuery.create(q=q, **query)
    paged = walk(lambda page: search(db, chosen, page, today=reference_day), size=7)
    assert _hits(paged) == expected


def test_the_ranks_run_exact_then_prefix_then_whole_word_then_substring(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    found = _all(db, reference_day, q="gelato")
    assert [name for _, _, name in found] == _names(_expected(dataset, reference_day, "gelato"))
    assert [_rank("gelato", name) for _, _, name in found] == [0, 1, 2]
    ranks = [_rank("co", name) for _, _, name in _all(db, reference_day, q="co")]
    assert ranks == sorted(ranks)
    assert set(ranks) == {1, 2, 3}


def test_equal_names_are_ordered_by_kind_then_key(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    found = _all(db, reference_day, q="off")
    names = _names(found)
    repeated = [name for name in set(names) if names.count(name) > 1]
    assert repeated, "several deals share a title"
    for name in repeated:
        keys = [key for _, key, hit_name in found if hit_name == name]
        assert keys == sorted(keys)
        first = names.index(name)
        assert names[first : first + len(keys)] == [name] * len(keys)


@pytest.mark.parametrize(
    ("given", "q"),
    [
        ("  KUSH ", "kush"),
        ("Co", "co"),
        ("OG Kush", "og kush"),
        ("KUSH", "kush"),
        ("  Kush \t", "kush"),
    ],
)
def test_the_query_is_trimmed_and_matched_in_any_case(
    db: Connection, dataset: Dataset, reference_day: date, given: str, q: str
) -> None:
    assert _all(db, reference_day, q=given) == _expected(dataset, reference_day, q)


@pytest.mark.parametrize("name", ["Gelato", "Papaya", "Girl Scout Cookies", "OG Kush", "AK-47"])
def test_an_exact_strain_name_comes_first_even_when_longer_names_share_its_prefix(
    db: Connection, dataset: Dataset, reference_day: date, name: str
) -> None:
    slug = next((s["slug"] for s in dataset.strains if s["name"] == name), None)
    assert slug is not None, f"{name} is a strain in the tiny dataset"
    for q in (name, name.lower(), name.upper()):
        page = search(db, SearchQuery.create(q=q), PageRequest.build(), today=reference_day)
        assert _hits(page.items)[0] == ("strain", slug, name)


def test_exact_names_of_every_kind_come_first(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    active = [deal for deal in dataset.deals if deal["expires"] >= reference_day]
    samples = [
        ("dispensary", min(dataset.dispensaries, key=lambda shop: shop["id"])["name"]),
        ("doctor", max(dataset.doctors, key=lambda doctor: doctor["id"])["name"]),
        ("deal", min(active, key=lambda deal: deal["id"])["title"]),
    ]
    for kind, name in samples:
        page = search(db, SearchQuery.create(q=name), PageRequest.build(), today=reference_day)
        first = page.items[0]
        assert (first.type, first.name) == (kind, name)


def test_a_whole_word_followed_by_punctuation_ranks_as_a_whole_word(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    names = _names(_all(db, reference_day, q="concentrate", type="deals"))
    comma = "Happy hour: Buy one concentrate, get one half off"
    plural = "40% off all concentrates"
    active = {name for kind, _, name, _ in _entries(dataset, reference_day) if kind == "deal"}
    assert {comma, plural} <= active
    assert names.index(comma) < names.index(plural)


@pytest.mark.parametrize("plural", list(KINDS))
@pytest.mark.parametrize("q", ["co", "an", "er"])
def test_type_keeps_one_kind(
    db: Connection, dataset: Dataset, reference_day: date, plural: str, q: str
) -> None:
    expected = _expected(dataset, reference_day, q, type=plural)
    assert expected
    found = _all(db, reference_day, q=q, type=plural.upper())
    assert found == expected
    assert {kind for kind, _, _ in found} == {KINDS[plural]}


@pytest.mark.parametrize(
    ("q", "state"), [("an", "CA"), ("co", "FL"), ("er", "tx"), ("cannabis", "NY"), ("an", "WY")]
)
def test_a_state_scopes_dispensaries_doctors_and_deals_but_not_strains(
    db: Connection, dataset: Dataset, reference_day: date, q: str, state: str
) -> None:
    expected = _expected(dataset, reference_day, q, state=state.upper())
    found = _all(db, reference_day, q=q, state=state)
    assert found == expected
    strains = [hit for hit in _expected(dataset, reference_day, q) if hit[0] == "strain"]
    assert [hit for hit in found if hit[0] == "strain"] == strains


# Each query matches all four kinds in its state in the tiny dataset.
@pytest.mark.parametrize(("given", "code", "q"), [("CA", "CA", "an"), ("Ny", "NY", "ll")])
def test_a_state_keeps_every_kind_found_in_it_and_every_strain(
    db: Connection, dataset: Dataset, reference_day: date, given: str, code: str, q: str
) -> None:
    found = _all(db, reference_day, q=q, state=given)
    assert found == _expected(dataset, reference_day, q, state=code)
    where = {(kind, key): state for kind, key, _, state in _entries(dataset, reference_day)}
    assert {kind for kind, _, _ in found} == {"strain", "dispensary", "doctor", "deal"}
    for kind, key, _ in found:
        if kind != "strain":
            assert where[(kind, key)] == code
    unscoped_strains = [hit for hit in _all(db, reference_day, q=q) if hit[0] == "strain"]
    assert [hit for hit in found if hit[0] == "strain"] == unscoped_strains


@pytest.mark.parametrize(("q", "state"), [("off", "FL"), ("off", "CA"), ("an", "NJ")])
def test_state_and_type_combine(
    db: Connection, dataset: Dataset, reference_day: date, q: str, state: str
) -> None:
    expected = _expected(dataset, reference_day, q, type="deals", state=state)
    assert expected
    assert _all(db, reference_day, q=q, type="deals", state=state) == expected


def test_a_state_does_not_scope_a_strain_only_search(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    everywhere = _all(db, reference_day, q="kush", type="strains")
    assert _all(db, reference_day, q="kush", type="strains", state="WY") == everywhere
    assert everywhere == _expected(dataset, reference_day, "kush")


def test_deals_are_found_only_while_active_on_today(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    expired = {d["public_id"] for d in dataset.deals if d["expires"] < reference_day}
    now = _all(db, reference_day, q="off", type="deals")
    assert not expired & {key for _, key, _ in now}
    long_ago = reference_day - timedelta(days=365)
    then = _all(db, long_ago, q="off", type="deals")
    assert then == _expected(dataset, long_ago, "off", type="deals")
    assert expired & {key for _, key, _ in then}


def test_expired_deals_never_appear(db: Connection, dataset: Dataset, reference_day: date) -> None:
    expired = [(d["public_id"], d["title"]) for d in dataset.deals if d["expires"] < reference_day]
    assert expired
    active = {d["public_id"] for d in dataset.deals if d["expires"] >= reference_day}
    for public_id, title in expired[:8]:
        deal_ids = {key for kind, key, _ in _all(db, reference_day, q=title) if kind == "deal"}
        assert public_id not in deal_ids
        assert deal_ids <= active
    for q in ("off", "one"):
        found = {key for _, key, _ in _all(db, reference_day, q=q, type="deals")}
        titled = {d["public_id"] for d in dataset.deals if q in d["title"].lower()}
        assert found == titled & active
        assert titled - active, f"some expired deal mentions {q!r}, so exclusion is tested"


def test_after_the_last_expiry_no_deal_is_found(db: Connection, dataset: Dataset) -> None:
    later = max(d["expires"] for d in dataset.deals) + timedelta(days=1)
    query = SearchQuery.create(q="off", type="deals")
    page = search(db, query, PageRequest.build(), today=later)
    assert (page.items, page.total) == ([], 0)
    assert _all(db, later, q="co") == _expected(dataset, later, "co")


@pytest.mark.parametrize(
    ("values", "param", "message"),
    [
        ({"q": None}, "q", "q is required: the text to search for"),
        ({"q": ""}, "q", "q is required: the text to search for"),
        ({"q": "  \t "}, "q", "q is required: the text to search for"),
        ({"q": "x" * 201}, "q", "q must be at most 200 characters"),
        ({"q": "ab\x00c"}, "q", "q must not contain NUL characters"),
        ({"q": "ab\ud800"}, "q", "q must be valid Unicode text"),
        (
            {"q": "kush", "type": "strain"},
            "type",
            "type must be one of: strains, dispensaries, doctors, deals",
        ),
        (
            {"q": "kush", "type": ""},
            "type",
            "type must be one of: strains, dispensaries, doctors, deals",
        ),
        (
            {"q": "kush", "state": "XX"},
            "state",
            "state must be a two-letter code of a US state, DC or territory (e.g. CA, NY, PR)",
        ),
    ],
)
def test_bad_queries_raise_invalid_parameter_naming_it(
    values: dict, param: str, message: str
) -> None:
    with pytest.raises(InvalidParameter) as raised:
        SearchQuery.create(**values)
    assert (raised.value.param, raised.value.message, raised.value.code) == (param, message, 400)


def test_a_query_of_exactly_200_characters_is_accepted_and_finds_nothing(
    db: Connection, reference_day: date
) -> None:
    query = SearchQuery.create(q="  " + "q" * 200 + "  ")
    assert len(query.q) == 200
    page = search(db, query, PageRequest.build(), today=reference_day)
    assert (page.items, page.total) == ([], 0)


@pytest.mark.parametrize("q", ["50% off", "100%", "off%", "%off", "o_f", "\\%", "_f"])
def test_like_wildcards_in_the_query_match_literally(
    db: Connection, dataset: Dataset, reference_day: date, q: str
) -> None:
    query = SearchQuery.create(q=q, type="deals")
    expected = _expected(dataset, reference_day, q, type="deals")
    page = search(db, query, PageRequest.build(100, 0), today=reference_day)
    assert _hits(page.items) == expected
    assert page.total == len(expected)


@pytest.mark.parametrize("q", ["' OR '1'='1", "'; DROP TABLE strains;--"])
def test_quotes_and_sql_fragments_match_literally(
    db: Connection, dataset: Dataset, reference_day: date, q: str
) -> None:
    found = _all(db, reference_day, q=q)
    assert found == _expected(dataset, reference_day, q)
    assert all(q.lower() in name.lower() for _, _, name in found)


def test_literal_matching_finds_percent_titles_but_wildcards_do_not_expand(
    db: Connection, dataset: Dataset, reference_day: date
) -> None:
    def total(q: str) -> int:
        query = SearchQuery.create(q=q)
        return search(db, query, PageRequest.build(), today=reference_day).total

    percent = _expected(dataset, reference_day, "0%")
    assert percent, "deal titles such as '20% off eighths' contain a percent sign"
    assert total("0%") == len(percent)
    assert total("%off") == 0
    assert total("' OR 1=1--") == 0
    assert total("s'") == len(_expected(dataset, reference_day, "s'"))
