"""Indexed search answers exactly what a full scan would, and falls back to similar names.

The index is FTS5 on SQLite and pg_trgm on PostgreSQL (this module runs on the backend of the
shared tiny dataset: set TEST_DATABASE_URL for PostgreSQL). Expectations come from ``Oracle``,
an independent model over every row's name: substring hits ranked exact, prefix, whole word,
other, ties by name; when nothing contains a plain-text query, names whose pg_trgm trigram
similarity is at least 0.3, most similar first. Queries of two characters go through the
pairs table rather than a trigram index; the model checks both.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, create_engine, event, select, text
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Strain
from models.db import make_session_factory
from models.search.rebuild import rebuild_search_index
from models.search.trigrams import is_similar, similarity, trigrams
from service.filters import SearchQuery
from service.paging import PageRequest
from service.search import SearchHit, search

SEPARATORS = ",.;:!?'\"()[]/&+-"
KINDS = {"strains": "strain", "dispensaries": "dispensary", "doctors": "doctor", "deals": "deal"}
PROPERTY = settings(
    max_examples=150,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


# --- the independent model --------------------------------------------------------------------


def _trigrams(text: str) -> set[str]:
    """pg_trgm's trigram set: lower-case runs of letters and digits as "  word ", cut in threes."""
    words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
    return {f"  {word} "[i : i + 3] for word in words for i in range(len(word) + 1)}


def _words(text: str) -> str:
    return "".join(" " if c in SEPARATORS else c for c in text.lower())


def _rank(q: str, name: str) -> int:
    q, name = q.lower(), name.lower()
    if name == q:
        return 0
    if name.startswith(q):
        return 1
    return 2 if f" {_words(q).strip()} " in f" {_words(name)} " else 3


def _plain_text(q: str) -> bool:
    """The documented rule: only letters, digits, spaces and separators may go fuzzy."""
    allowed = all(c.isalnum() or c.isspace() or c in SEPARATORS for c in q)
    return allowed and any(c.isalnum() for c in q)


@dataclass(frozen=True)
class Row:
    kind: str
    key: str
    name: str
    state: str | None  # None for strains


class Oracle:
    """Every searchable row (active deals only) and the contract, in plain Python."""

    def __init__(self, session: Session, today: date) -> None:
        rows = [
            Row("strain", k, n, None) for k, n in session.execute(select(Strain.slug, Strain.name))
        ]
        rows += [
            Row("dispensary", *r)
            for r in session.execute(
                select(Dispensary.public_id, Dispensary.name, Dispensary.state)
            )
        ]
        rows += [
            Row("doctor", *r)
            for r in session.execute(select(Doctor.public_id, Doctor.name, Doctor.state))
        ]
        rows += [
            Row("deal", *r)
            for r in session.execute(
                select(Deal.public_id, Deal.title, Dispensary.state)
                .join(Dispensary, Deal.dispensary_id == Dispensary.id)
                .where(Deal.expires >= today)
            )
        ]
        self.rows = rows
        self.names = sorted({row.name for row in rows})

    def _scoped(self, kind: str | None, state: str | None) -> list[Row]:
        return [
            row
            for row in self.rows
            if (kind is None or row.kind == KINDS[kind])
            and (state is None or row.state is None or row.state == state)
        ]

    def substring(self, q: str, kind: str | None = None, state: str | None = None) -> list[Row]:
        text = q.strip()
        hits = [row for row in self._scoped(kind, state) if text.lower() in row.name.lower()]
        return sorted(
            hits, key=lambda r: (_rank(text, r.name), r.name.lower(), r.name, r.kind, r.key)
        )

    def similar(self, q: str, kind: str | None = None, state: str | None = None) -> list[Row]:
        wanted = _trigrams(q)
        scored = []
        for row in self._scoped(kind, state):
            found = _trigrams(row.name)
            shared, union = len(wanted & found), len(wanted | found)
            if union and 10 * shared >= 3 * union:
                scored.append((-shared / union, row.name.lower(), row.name, row.kind, row.key, row))
        return [item[-1] for item in sorted(scored)]

    def expected(self, q: str, kind: str | None = None, state: str | None = None) -> list[Row]:
        found = self.substring(q, kind, state)
        if found or not _plain_text(q.strip()):
            return found
        return self.similar(q.strip(), kind, state)


# --- fixtures and helpers ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def reader(engine: Engine) -> Iterator[Session]:
    """A read-only session for the whole module (hypothesis calls the test many times)."""
    with make_session_factory(engine)() as session:
        yield session


@pytest.fixture(scope="module")
def oracle(reader: Session, reference_day: date) -> Oracle:
    return Oracle(reader, reference_day)


def _search_all(
    session: Session, today: date, q: str, kind: str | None = None, state: str | None = None
) -> list[tuple[str, str, str]]:
    """Every hit as (kind, key, name), walking pages of 100 and checking each page's total."""
    query = SearchQuery.create(q=q, type=kind, state=state)
    items: list[SearchHit] = []
    while True:
        page = search(session, query, PageRequest.build(100, len(items)), today=today)
        items.extend(page.items)
        if not page.items or len(items) >= page.total:
            assert len(items) == page.total
            return [(hit.type, hit.key, hit.name) for hit in items]


def _keys(rows: list[Row]) -> list[tuple[str, str, str]]:
    return [(row.kind, row.key, row.name) for row in rows]


# --- substring search through the index --------------------------------------------------------


@pytest.mark.parametrize(
    "q",
    ["an", "Er", "og", "Ku", "o'", "kus", "blue", "Dr. K", "santa barbara", "off", "get one"],
)
def test_two_and_three_or_more_characters_give_the_model_results(
    reader: Session, reference_day: date, oracle: Oracle, q: str
) -> None:
    expected = _keys(oracle.substring(q))
    assert expected, f"{q!r} should match something in the tiny dataset"
    assert _search_all(reader, reference_day, q) == expected


@pytest.mark.parametrize(
    "q",
    [
        "%%",
        "__",
        "\\\\",
        "20%",
        "%off",
        "_0%",
        "o_f",
        "s'",
        '""',
        "''",
        '"off"',
        "' OR 1=1--",
        "x%' OR name LIKE '%",
        "**",
        "[a-z]",
        "100%",
        "Charlotte's",
        "off\\",
        "o%f",
    ],
)
def test_like_metacharacters_and_quotes_match_literally(
    reader: Session, reference_day: date, oracle: Oracle, q: str
) -> None:
    found = _search_all(reader, reference_day, q)
    assert found == _keys(oracle.expected(q))
    if any(c in q for c in "%_\\*="):  # never fuzzy: literal hits or nothing
        assert found == _keys(oracle.substring(q))
        assert all(q.lower() in name.lower() for _kind, _key, name in found)


@pytest.mark.parametrize(
    ("q", "kind", "state"),
    [
        ("off", "deals", "CA"),
        ("one", "deals", None),
        ("wellness", "dispensaries", "CO"),
        ("dr", "doctors", "FL"),
        ("kush", "strains", "WY"),
        ("an", None, "TX"),
        ("blue", None, "NY"),
        ("an", "dispensaries", None),
        ("haze", None, "CA"),
    ],
)
def test_state_and_type_filters_scope_the_indexed_search(
    reader: Session,
    reference_day: date,
    oracle: Oracle,
    q: str,
    kind: str | None,
    state: str | None,
) -> None:
    expected = _keys(oracle.expected(q, kind, state))
    assert _search_all(reader, reference_day, q, kind, state) == expected


@pytest.mark.parametrize(
    ("kind", "state", "index"),
    [
        # One kind in one state: that state's entries of the kind, whatever the text finds.
        ("deals", "CA", "ix_search_entries_kind_state"),
        ("dispensaries", "CO", "ix_search_entries_kind_state"),
        # Strains are in every state; a search across kinds still starts from the text index.
        ("strains", "CA", "search_names"),
        (None, "CA", "search_names"),
        ("deals", None, "search_names"),
    ],
)
def test_a_search_of_one_kind_in_one_state_reads_that_state_s_entries(
    reader: Session, reference_day: date, kind: str | None, state: str | None, index: str
) -> None:
    if reader.get_bind().dialect.name != "sqlite":
        pytest.skip("PostgreSQL chooses between its indexes by statistics; SQLite by the SQL")
    executed: list[tuple[str, Any]] = []
    before = _collect(executed)
    connection = reader.connection()
    event.listen(connection, "before_cursor_execute", before)
    try:
        _search_all(reader, reference_day, "off", kind, state)
    finally:
        event.remove(connection, "before_cursor_execute", before)
    statement, parameters = executed[0]  # the page (the only statement when it has hits)
    plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters).all()
    details = " | ".join(row[-1] for row in plan)
    assert index in details, details


def test_expired_deals_are_excluded_from_substring_and_similar_hits(
    reader: Session, reference_day: date, oracle: Oracle
) -> None:
    query = select(Deal.public_id, Deal.title).where(Deal.expires < reference_day)
    expired = {key: title for key, title in reader.execute(query)}
    assert expired
    for title in sorted(set(expired.values()))[:10]:
        for q in (title, title[:-1] + "x"):  # the title, and a typo of it
            found = _search_all(reader, reference_day, q, "deals")
            assert not {key for _kind, key, _name in found} & set(expired)
            assert found == _keys(oracle.expected(q, "deals"))


def test_pages_concatenate_and_totals_hold_past_the_end(
    reader: Session, reference_day: date, oracle: Oracle
) -> None:
    for q in ("er", "off", "cannabis clinik"):  # the pairs, the trigram index, the fallback
        expected = _keys(oracle.expected(q))
        assert len(expected) > 7
        query = SearchQuery.create(q=q)
        pages = [
            search(reader, query, PageRequest.build(7, offset), today=reference_day)
            for offset in range(0, len(expected) + 7, 7)
        ]
        assert {page.total for page in pages} == {len(expected)}
        items = [(h.type, h.key, h.name) for page in pages for h in page.items]
        assert items == expected
        beyond = search(reader, query, PageRequest.build(5, 10_000), today=reference_day)
        assert (beyond.items, beyond.total) == ([], len(expected))


# --- the typo fallback ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typo", "name"),
    [
        ("blue dreem", "Blue Dream"),
        ("Gelatto", "Gelato"),
        ("og kuhs", "OG Kush"),
        ("girl scuot cookies", "Girl Scout Cookies"),
    ],
)
def test_a_one_letter_typo_finds_the_name_first(
    reader: Session, reference_day: date, oracle: Oracle, typo: str, name: str
) -> None:
    assert not oracle.substring(typo), "the typo must not be a substring of any name"
    found = _search_all(reader, reference_day, typo)
    assert found[0][2] == name
    assert found == _keys(oracle.similar(typo))


@pytest.mark.parametrize("q", ["blue", "kush", "Gelato", "wellness"])
def test_the_fallback_does_not_fire_when_names_contain_the_query(
    reader: Session, reference_day: date, oracle: Oracle, q: str
) -> None:
    found = _search_all(reader, reference_day, q)
    assert found == _keys(oracle.substring(q))
    assert all(q.lower() in name.lower() for _kind, _key, name in found)


@pytest.mark.parametrize("q", ["zzqxj", "k" * 200, "UNION SELECT", "'; DROP TABLE strains;--"])
def test_nothing_similar_enough_is_an_empty_page(
    reader: Session, reference_day: date, oracle: Oracle, q: str
) -> None:
    assert oracle.expected(q) == []
    assert _search_all(reader, reference_day, q) == []


def _add_strain(session: Session, name: str, slug: str | None = None) -> None:
    session.add(
        Strain(
            slug=slug or name.lower().replace(" ", "-"),
            name=name,
            type="hybrid",
            thc=18.0,
            cbd=0.5,
            description="Test strain.",
            rating=4.0,
            review_count=1,
            effect_list=[],
            flavor_list=[],
        )
    )


def test_the_threshold_is_inclusive_at_exactly_three_tenths(
    session: Session, reference_day: date
) -> None:
    # "qwertyu" has 8 trigrams; "Qwex" shares 3 of its 5, union 10: 0.3. "Qwexz" (6): 3/11.
    assert similarity("qwertyu", "Qwex") == 0.3
    assert similarity("qwertyu", "Qwexz") < 0.3
    _add_strain(session, "Qwex")
    _add_strain(session, "Qwexz")
    session.flush()
    rebuild_search_index(session.connection())
    found = _search_all(session, reference_day, "qwertyu")
    assert [name for _kind, _key, name in found] == ["Qwex"]


def test_a_two_character_query_ranks_exact_prefix_whole_word_then_other(
    session: Session, reference_day: date
) -> None:
    # Names made to rank 0..3 for "zq" (the pairs carry ranks worked out at build time),
    # two of them tied on the folded name and so ordered by name.
    for n, name in enumerate(("Zq", "Zq Haze", "Big ZQ", "Big zq", "Alazq Kush", "Zqzq")):
        _add_strain(session, name, slug=f"zq-{n}")
    session.flush()
    rebuild_search_index(session.connection())
    found = [name for _kind, _key, name in _search_all(session, reference_day, "zQ")]
    expected = [name for _kind, _key, name in _keys(Oracle(session, reference_day).expected("zq"))]
    assert found == expected
    assert found == ["Zq", "Zq Haze", "Zqzq", "Big ZQ", "Big zq", "Alazq Kush"]


@PROPERTY
@given(
    name=st.text(alphabet="abogé -.'0", max_size=14),
    q=st.text(alphabet="abogé0", min_size=2, max_size=2),
)
def test_a_name_similar_to_two_letters_contains_them(name: str, q: str) -> None:
    # Why search skips the typo fallback for such queries when no name contains them.
    name_grams, q_grams = trigrams(name), trigrams(q)
    if is_similar(len(name_grams & q_grams), len(name_grams), len(q_grams)):
        assert q.lower() in name.lower()


def test_a_two_letter_query_without_hits_skips_the_fallback(
    session: Session, reference_day: date
) -> None:
    _add_strain(session, "Xo Yj")  # shares a trigram ("  x") with "xy", and does not contain it
    session.flush()
    rebuild_search_index(session.connection())
    statements: list[tuple[str, Any]] = []
    event.listen(session.connection(), "before_cursor_execute", _collect(statements))
    assert _search_all(session, reference_day, "xy") == []
    assert statements  # the pairs page (and its count), no similarity statement
    assert all("search_pairs" in statement for statement, _parameters in statements)


def _collect(statements: list[tuple[str, Any]]):
    """A ``before_cursor_execute`` listener that records each (statement, parameters)."""

    def before(_conn, _cursor, statement, parameters, *_args) -> None:
        statements.append((statement, parameters))

    return before


def test_similarity_is_pg_trgm_s_formula_in_exact_arithmetic() -> None:
    assert trigrams("Blue Dream") == {
        "  b",
        " bl",
        "blu",
        "lue",
        "ue ",
        "  d",
        " dr",
        "dre",
        "rea",
        "eam",
        "am ",
    }
    assert trigrams("AK-47") == {"  a", " ak", "ak ", "  4", " 47", "47 "}
    assert trigrams("%$!") == frozenset()
    assert is_similar(3, 8, 5)  # 3 / (8 + 5 - 3) = 0.3
    assert not is_similar(3, 8, 6)  # 3 / 11
    assert similarity("blue dreem", "Blue Dream") == pytest.approx(8 / 14)


# --- properties ----------------------------------------------------------------------------------


@st.composite
def _queries(draw: st.DrawFn, names: list[str]) -> str:
    """Slices of real names in any case, typos of them, and arbitrary short texts."""
    name = draw(st.sampled_from(names))
    how = draw(st.sampled_from(["slice", "typo", "text"]))
    if how == "slice":
        start = draw(st.integers(0, max(0, len(name) - 1)))
        q = name[start : start + draw(st.integers(1, 12))]
        q = q.upper() if draw(st.booleans()) else q
    elif how == "typo":
        at = draw(st.integers(0, len(name) - 1))
        letter = draw(st.sampled_from("aeiouxyz"))
        q = draw(st.sampled_from([name[:at] + letter + name[at + 1 :], name[:at] + name[at + 1 :]]))
    else:
        q = draw(st.text(alphabet="abcdeoklsu %_\\'\"*-.,&é", min_size=1, max_size=8))
    # Search takes at least two characters once trimmed: pad shorter draws.
    return q if len(q.strip()) >= 2 else f"{q.strip() or 'x'}x"


@PROPERTY
@given(data=st.data())
def test_indexed_search_equals_the_model(
    reader: Session, reference_day: date, oracle: Oracle, data: st.DataObject
) -> None:
    q = data.draw(_queries(oracle.names), label="q")
    kind = data.draw(st.sampled_from([None, *KINDS]), label="type")
    state = data.draw(st.sampled_from([None, "CA", "CO", "NY"]), label="state")
    found = _search_all(reader, reference_day, q, kind, state)
    assert found == _keys(oracle.expected(q, kind, state))


# --- the Python trigrams are pg_trgm's -----------------------------------------------------------


@pytest.mark.postgres
def test_python_trigrams_and_similarity_equal_pg_trgm(
    postgres_scratch_url: str, oracle: Oracle
) -> None:
    engine = create_engine(postgres_scratch_url)
    samples = ["blue dreem", "og kuhs", "Dr. K", "20% off!", "qwertyu", "AK-47", "a", "%"]
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            for name in [*oracle.names, *samples]:
                shown = conn.scalar(text("SELECT show_trgm(:t)"), {"t": name})
                assert set(shown) == trigrams(name), name
            for q in samples:
                for name in oracle.names[::7]:
                    pg = conn.scalar(text("SELECT similarity(:a, :b)"), {"a": q, "b": name})
                    assert pg == pytest.approx(similarity(q, name), abs=1e-6), (q, name)
            conn.exec_driver_sql("SET pg_trgm.similarity_threshold = 0.3")
            assert conn.scalar(text("SELECT 'qwertyu' % 'Qwex'")) is True
            assert conn.scalar(text("SELECT 'qwertyu' % 'Qwexz'")) is False
    finally:
        engine.dispose()
