"""Nested relations are batched: statements per query do not grow with the page size."""

from collections.abc import Callable, Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from .conftest import warm_up

NESTED = """
query Nested($limit: Int!) {
  dispensaries(limit: $limit) {
    total
    items {
      id
      deals { id dispensary { id } }
      menu { name strain { slug terpenes } }
      reviews { rating }
      law { stateCode }
    }
  }
}
"""
STRAINS_NESTED = """
query StrainsNested($limit: Int!) {
  strains(limit: $limit) {
    items { slug terpenes dispensaries(limit: 3) { id law { stateCode } } }
  }
}
"""

STRAINS_PRICED = """
query StrainsPriced($limit: Int!) {
  strains(limit: $limit) { items { slug dispensaries(limit: 3) { id price unit } } }
}
"""
# Lineage and the batch on the shelf: relatives two levels deep, and the stockists' items by
# price per gram over a batch THC floor, with their labs.
STRAINS_KIN = """
query StrainsKin($limit: Int!) {
  strains(limit: $limit) {
    items {
      parents { total items { slug children(limit: 2) { items { slug } } } }
      children(limit: 3) { total items { slug } }
      dispensaries(limit: 2, sort: PRICE_PER_GRAM, totalThcMin: 10) {
        id pricePerGram lab { totalThc results { key value qualifier } }
        menu(limit: 2) { pricePerGram lab { batchId } }
      }
    }
  }
}
"""
PAGED_NESTED = """
query PagedNested($limit: Int!) {
  dispensaries(limit: $limit) {
    items {
      reviewCount
      deals(limit: 2, offset: 1) { id }
      menu(limit: 3, offset: 2) { name strain { slug } }
      reviews(limit: 2, offset: 1) { rating }
    }
  }
  strains(limit: $limit) { items { dispensaries(limit: 2, offset: 3) { id } } }
}
"""


Run = Callable[[Flask, FlaskClient, str, str, int], tuple[dict, int]]


@pytest.fixture
def run(count_statements) -> Run:
    """Post ``query`` with ``limit``; return its data and the number of SQL statements it ran."""

    def run_query(
        app: Flask, client: FlaskClient, key: str, query: str, limit: int
    ) -> tuple[dict, int]:
        with count_statements(app) as statements:
            response = client.post(
                "/graphql",
                json={"query": query, "variables": {"limit": limit}},
                headers={"X-API-Key": key},
            )
        assert response.status_code == 200
        body = response.get_json()
        assert "errors" not in body, body.get("errors")
        return body["data"], len(statements)

    return run_query


@pytest.fixture
def app(make_app, api_keys: dict) -> Flask:
    """Without the result cache and with a key lookup per request: every query really runs.

    The cost budget is raised: a page of 100 dispensaries with full menus is over the default.
    The table sizes the cost check reads once per data version are read before any count."""
    app = make_app(STATE_TTL_MS=0, PAGE_CACHE_MB=0, GRAPHQL_COST_BUDGET=10**9)
    warm_up(app, api_keys["enterprise"])
    return app


@pytest.fixture
def client(app: Flask) -> Iterator[FlaskClient]:
    with app.test_client() as client:
        yield client


@pytest.mark.usefixtures("speed_tricks")  # the result cache is a speed trick
def test_a_repeated_query_is_answered_from_the_result_cache(
    make_app, api_keys: dict, run: Run
) -> None:
    # The key and the data version are reused for STATE_TTL_MS: long enough here that a slow
    # first request (a busy CI machine) cannot outlive them.
    cached = make_app(STATE_TTL_MS=60_000, GRAPHQL_COST_BUDGET=10**9)
    warm_up(cached, api_keys["enterprise"])
    with cached.test_client() as client:
        first, first_count = run(cached, client, api_keys["enterprise"], NESTED, 5)
        again, again_count = run(cached, client, api_keys["enterprise"], NESTED, 5)
    assert again == first
    assert first_count > 0
    assert again_count == 0  # key and data version reused, result cached: no statement at all


@pytest.mark.parametrize(
    "query",
    [NESTED, STRAINS_NESTED, STRAINS_PRICED, STRAINS_KIN],
    ids=["dispensaries", "strains", "strains priced", "strains kin"],
)
def test_statement_count_is_the_same_for_5_and_100_parents(
    app: Flask, client: FlaskClient, api_keys: dict, query: str, run: Run
) -> None:
    small, small_count = run(app, client, api_keys["enterprise"], query, 5)
    large, large_count = run(app, client, api_keys["enterprise"], query, 100)
    assert len(next(iter(small.values()))["items"]) == 5
    assert len(next(iter(large.values()))["items"]) == 100
    assert small_count == large_count


def test_nested_dispensary_page_uses_one_statement_per_relation(
    app: Flask, client: FlaskClient, api_keys: dict, run: Run
) -> None:
    _data, statements = run(app, client, api_keys["enterprise"], NESTED, 100)
    # key lookup, data version (the cost check's table sizes are per version), page (its count
    # included), deals, deal->dispensary, menu, menu->strain (its effects and flavors
    # included), terpenes, reviews, law
    assert statements == 10


def test_nested_offsets_and_review_counts_are_one_statement_per_relation_at_any_page_size(
    app: Flask, client: FlaskClient, api_keys: dict, run: Run
) -> None:
    small, small_count = run(app, client, api_keys["enterprise"], PAGED_NESTED, 5)
    large, large_count = run(app, client, api_keys["enterprise"], PAGED_NESTED, 100)
    assert len(small["dispensaries"]["items"]) == 5
    assert len(large["strains"]["items"]) == 100
    # key lookup, data version, dispensary page, review counts, deals, menu, menu->strain,
    # reviews, strain page, strain->dispensaries
    assert small_count == large_count == 10


def test_strain_page_with_nested_dispensaries_and_laws_is_five_statements(
    app: Flask, client: FlaskClient, api_keys: dict, run: Run
) -> None:
    _data, statements = run(app, client, api_keys["enterprise"], STRAINS_NESTED, 100)
    # key lookup, data version, page (its count, effects and flavors included), terpenes,
    # strain->dispensaries, law
    assert statements == 6


def test_relatives_and_shelf_items_of_a_strain_page_are_one_statement_per_relation(
    app: Flask, client: FlaskClient, api_keys: dict, run: Run
) -> None:
    _data, statements = run(app, client, api_keys["enterprise"], STRAINS_KIN, 100)
    # key lookup, data version, page, parents, the parents' children, children,
    # strain->dispensaries, their menu item (price per gram, lab), their menus
    assert statements == 9


def test_prices_of_a_strain_page_dispensaries_are_one_statement(
    app: Flask, client: FlaskClient, api_keys: dict, run: Run
) -> None:
    data, statements = run(app, client, api_keys["enterprise"], STRAINS_PRICED, 100)
    priced = [d for s in data["strains"]["items"] for d in s["dispensaries"]]
    assert len(priced) > 100
    assert all(isinstance(d["price"], float) and d["unit"] for d in priced)
    # key lookup, data version, page (its count, effects and flavors included),
    # strain->dispensaries, the cheapest menu item of every (strain, dispensary) pair
    assert statements == 5


ITEM = "fragment Item on MenuItem { strain { slug } }"
MENU_SPELLINGS = {
    "direct": ("menu { strainSlug strain { slug } }", ""),
    "alias": ("menu { strainSlug s: strain { slug } }", ""),
    "inline fragment": ("menu { strainSlug ... on MenuItem { strain { slug } } }", ""),
    "untyped inline fragment": (
        "menu { strainSlug ... @include(if: true) { strain { slug } } }",
        "",
    ),
    "named fragment": ("menu { strainSlug ...Item }", ITEM),
    "nested named fragments": (
        "menu { ...Outer }",
        ITEM + " fragment Outer on MenuItem { strainSlug ...Item }",
    ),
    "fragment on the dispensary": (
        "...Menu",
        "fragment Menu on Dispensary { menu { strainSlug strain { slug } } }",
    ),
    "merged menu fields": ("menu { strainSlug } menu { strain { slug } }", ""),
    "included": ("menu { strainSlug strain @include(if: $flag) { slug } }", ""),
    "not skipped": ("menu { strainSlug strain @skip(if: $flag) { slug } }", ""),
}


def _menu_query(selection: str, fragments: str) -> str:
    flag = ", $flag: Boolean! = %s" % ("true" if "@include" in selection else "false")
    flag = flag if "$flag" in selection else ""
    return (
        f"query Menus($limit: Int!{flag}) {{ dispensaries(limit: $limit)"
        f" {{ items {{ id {selection} }} }} }} {fragments}"
    )


@pytest.mark.parametrize("spelling", MENU_SPELLINGS.values(), ids=MENU_SPELLINGS.keys())
def test_menu_item_strains_arrive_however_the_query_spells_them(
    app: Flask, client: FlaskClient, api_keys: dict, run: Run, spelling: tuple[str, str]
) -> None:
    """Each item's strain comes with its menu when any selection asks for it (an alias,
    fragments, directives): the strain is the item's own, and null for non-strain items."""
    data, _statements = run(app, client, api_keys["enterprise"], _menu_query(*spelling), 10)
    items = [item for d in data["dispensaries"]["items"] for item in d["menu"]]
    with_strain = [item for item in items if item["strainSlug"] is not None]
    assert with_strain, "the test data should list strains on these menus"
    assert len(with_strain) < len(items), "and other products too"
    for item in items:
        strain = item.get("strain", item.get("s"))
        expected = None if item["strainSlug"] is None else {"slug": item["strainSlug"]}
        assert strain == expected


def test_a_skipped_strain_is_left_out_and_other_menu_aliases_keep_theirs(
    app: Flask, client: FlaskClient, api_keys: dict, run: Run
) -> None:
    skipped, _ = run(
        app,
        client,
        api_keys["enterprise"],
        "query Q($limit: Int!) { dispensaries(limit: $limit) { items {"
        " menu { name strain @include(if: false) { slug } } } } }",
        5,
    )
    assert all("strain" not in item for d in skipped["dispensaries"]["items"] for item in d["menu"])
    both, _ = run(
        app,
        client,
        api_keys["enterprise"],
        "query Q($limit: Int!) { dispensaries(limit: $limit) { items {"
        " plain: menu { strainSlug } linked: menu { strainSlug strain { slug } } } } }",
        5,
    )
    for dispensary in both["dispensaries"]["items"]:
        assert [i["strainSlug"] for i in dispensary["plain"]] == [
            i["strain"] and i["strain"]["slug"] for i in dispensary["linked"]
        ]


def test_menu_strains_are_fetched_only_when_the_query_asks_for_them(
    app: Flask, client: FlaskClient, api_keys: dict, run: Run
) -> None:
    query = "query Q($limit: Int!) { dispensaries(limit: $limit) { items { menu { name %s } } } }"
    _plain, without = run(app, client, api_keys["enterprise"], query % "", 20)
    _linked, with_strains = run(app, client, api_keys["enterprise"], query % "strain { slug }", 20)
    # key lookup, data version, page, menu; then the strains of every listed item in one more
    # statement
    assert without == 4
    assert with_strains == 5
