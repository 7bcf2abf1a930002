"""Change stamps over GraphQL: updatedAt (and a dispensary's menuUpdatedAt) on every type,
updatedSince and the UPDATED_AT / UPDATED_AT_DESC orders on every list, as REST has them."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from tests.stamps import BASE, STAMP, Stamps, ms, restamp, text

# Each list field: its name, the kind of its items, the field carrying the key, whether paged.
LISTS = [
    ("strains", "strains", "slug", True),
    ("dispensaries", "dispensaries", "id", True),
    ("deals", "deals", "id", True),
    ("doctors", "doctors", "id", True),
    ("laws", "laws", "stateCode", False),
]


@pytest.fixture
def stamps(app: Flask) -> Iterator[Stamps]:
    with restamp(app) as written:
        yield written


def _all(gql, field: str, key: str, paged: bool, arguments: str = "") -> list[dict[str, Any]]:
    """Every item of a list field (its key and stamp), in pages of 7."""
    selection = f"{key} updatedAt" + (" menuUpdatedAt" if field == "dispensaries" else "")
    if not paged:
        where = f"({arguments})" if arguments else ""
        return gql.data(f"{{ {field}{where} {{ {selection} }} }}")[field]
    items: list[dict[str, Any]] = []
    while True:
        window = f"limit: 7, offset: {len(items)}" + (f", {arguments}" if arguments else "")
        page = gql.data(f"{{ {field}({window}) {{ total items {{ {selection} }} }} }}")[field]
        items.extend(page["items"])
        if len(items) >= page["total"] or not page["items"]:
            assert len(items) == page["total"]
            return items


@pytest.mark.parametrize(("field", "kind", "key", "paged"), LISTS)
def test_every_type_shows_its_stamp_as_rest_writes_it(
    gql, stamps: Stamps, field: str, kind: str, key: str, paged: bool
) -> None:
    written = getattr(stamps, kind)
    for item in _all(gql, field, key, paged):
        assert STAMP.fullmatch(item["updatedAt"])
        assert item["updatedAt"] == text(written[item[key]])
        if kind == "dispensaries":
            assert item["menuUpdatedAt"] == text(stamps.menus[item["id"]])


def test_details_nodes_and_nested_records_show_their_stamps(gql, stamps: Stamps) -> None:
    slug = next(iter(stamps.strains))
    data = gql.data(
        f'{{ strain(slug: "{slug}") {{ updatedAt }} law(state: "CO") {{ updated updatedAt }} '
        'node(id: "disp_1001") { ... on Dispensary { updatedAt menuUpdatedAt } } '
        "deals(limit: 1) { items { id updatedAt dispensary { id updatedAt } } } }"
    )
    assert data["strain"]["updatedAt"] == text(stamps.strains[slug])
    assert data["law"]["updatedAt"] == text(stamps.laws["CO"])
    assert data["node"] == {
        "updatedAt": text(stamps.dispensaries["disp_1001"]),
        "menuUpdatedAt": text(stamps.menus["disp_1001"]),
    }
    deal = data["deals"]["items"][0]
    assert deal["updatedAt"] == text(stamps.deals[deal["id"]])
    shop = deal["dispensary"]
    assert shop["updatedAt"] == text(stamps.dispensaries[shop["id"]])


def test_the_schema_lists_the_stamps_after_every_other_field(gql) -> None:
    data = gql.data(
        "{ __schema { types { name fields { name } } } }",
    )
    fields = {t["name"]: [f["name"] for f in t["fields"] or []] for t in data["__schema"]["types"]}
    for name in ("Strain", "Deal", "Doctor", "Law"):
        assert fields[name][-1] == "updatedAt", name
    assert fields["Dispensary"][-2:] == ["updatedAt", "menuUpdatedAt"]


@pytest.mark.parametrize(("field", "kind", "key", "paged"), LISTS)
def test_updated_since_keeps_what_changed_at_or_after_it(
    gql, stamps: Stamps, field: str, kind: str, key: str, paged: bool
) -> None:
    boundary = BASE + ms(5)
    listed = {item[key] for item in _all(gql, field, key, paged)}
    expected = stamps.since(kind, boundary) & listed
    assert 0 < len(expected) < len(listed)
    since = f'updatedSince: "{text(boundary)}"'
    assert {item[key] for item in _all(gql, field, key, paged, since)} == expected
    at_boundary = {k for k in expected if getattr(stamps, kind)[k] == boundary}
    assert at_boundary
    later = f'updatedSince: "{text(boundary + ms(1))}"'
    assert {item[key] for item in _all(gql, field, key, paged, later)} == expected - at_boundary


def test_updated_since_combines_with_filters_and_a_strains_dispensaries(
    gql, stamps: Stamps
) -> None:
    since = BASE + ms(3)
    hybrids = _all(gql, "strains", "slug", True, "type: HYBRID")
    stamped = {s["slug"] for s in hybrids if stamps.strains[s["slug"]] >= since}
    found = _all(gql, "strains", "slug", True, f'type: HYBRID, updatedSince: "{text(since)}"')
    assert {s["slug"] for s in found} == stamped
    recent = f'recent: dispensaries(limit: 40, updatedSince: "{text(since)}") {{ id }}'
    query = "{ strains(limit: 40) { items { slug all: dispensaries(limit: 40) { id } " + recent
    query += " } } }"
    checked = 0
    for strain in gql.data(query)["strains"]["items"]:
        everywhere = [d["id"] for d in strain["all"]]
        kept = [d for d in everywhere if stamps.dispensaries[d] >= since]
        assert [d["id"] for d in strain["recent"]] == kept
        checked += len(everywhere) > len(kept) > 0
    assert checked > 0


@pytest.mark.parametrize(("field", "kind", "key", "paged"), LISTS)
def test_sort_by_stamp_oldest_first_ties_by_key_and_the_reverse(
    gql, stamps: Stamps, field: str, kind: str, key: str, paged: bool
) -> None:
    listed = {item[key] for item in _all(gql, field, key, paged)}
    written = getattr(stamps, kind)
    oldest = sorted(listed, key=lambda k: (written[k], stamps.keys[kind][k]))
    found = _all(gql, field, key, paged, "sort: UPDATED_AT")
    assert [item[key] for item in found] == oldest
    newest = _all(gql, field, key, paged, "sort: UPDATED_AT_DESC")
    assert [item[key] for item in newest] == oldest[::-1]


def test_a_strains_dispensaries_sort_by_stamp(gql, stamps: Stamps) -> None:
    query = (
        "{ strains(limit: 40) { items { dispensaries(limit: 40, sort: UPDATED_AT) { id } "
        "newest: dispensaries(limit: 40, sort: UPDATED_AT_DESC) { id } } } }"
    )
    keys = stamps.keys["dispensaries"]
    for strain in gql.data(query)["strains"]["items"]:
        ids = [d["id"] for d in strain["dispensaries"]]
        assert ids == sorted(ids, key=lambda d: (stamps.dispensaries[d], keys[d]))
        assert [d["id"] for d in strain["newest"]] == ids[::-1]


@pytest.mark.parametrize(
    "field",
    [
        "strains(updatedSince: $at) { total }",
        "dispensaries(updatedSince: $at) { total }",
        "deals(updatedSince: $at) { total }",
        "doctors(updatedSince: $at) { total }",
        "laws(updatedSince: $at) { state }",
        'strain(slug: "acdc") { dispensaries(updatedSince: $at) { id } }',
    ],
)
def test_updated_since_in_the_future_is_an_error_naming_the_argument(gql, field: str) -> None:
    soon = text(datetime.now(UTC) + timedelta(minutes=2))
    errors = gql.errors(f"query Q($at: DateTime) {{ {field} }}", {"at": soon})
    assert len(errors) == 1
    assert errors[0]["extensions"]["code"] == 400
    assert errors[0]["extensions"]["param"] == "updatedSince"
    assert errors[0]["message"].startswith("updatedSince must not be in the future")


def test_updated_since_that_is_no_instant_is_refused(gql) -> None:
    errors = gql.errors('{ strains(updatedSince: "2026-11-27") { total } }')
    assert errors[0]["extensions"]["code"] == 400
    assert "DateTime" in errors[0]["message"]
