"""service.strains.list_strains on the shared tiny dataset: filters, order, totals, errors.

Expected rows come from the generated dataset in plain Python (seed.generate, the rows the
database was loaded with): a strain matches when every given filter holds (type equal, the
effect or flavor among its traits, THC and CBD within inclusive bounds); strains are ordered
by name in lower case, then id.
"""

from typing import Any

import pytest
from sqlalchemy import Connection, select

from models import Strain
from seed import Dataset
from service.errors import InvalidParameter
from service.filters import StrainFilters
from service.paging import PageRequest
from service.strains import StrainRow, list_strains
from tests.service.pages import walk, window

RANGES = {
    "thc_min": ("thc", float.__ge__),
    "thc_max": ("thc", float.__le__),
    "cbd_min": ("cbd", float.__ge__),
    "cbd_max": ("cbd", float.__le__),
}


def _traits(rows: list[dict[str, Any]]) -> dict[int, list[str]]:
    """Strain id -> trait names in position order."""
    found: dict[int, list[tuple[int, str]]] = {}
    for row in rows:
        found.setdefault(row["strain_id"], []).append((row["position"], row["name"]))
    return {strain_id: [name for _, name in sorted(pairs)] for strain_id, pairs in found.items()}


def _expected(dataset: Dataset, **filters: Any) -> list[dict[str, Any]]:
    """The dataset's strains matching ``filters`` (already normalised), in list order."""
    effects, flavors = _traits(dataset.strain_effects), _traits(dataset.strain_flavors)

    def wanted(name: str) -> set[str]:
        """A filter's values: one word, or several (comma-separated, any of them)."""
        return set(filters[name].split(","))

    def matches(strain: dict[str, Any]) -> bool:
        if "type" in filters and strain["type"] not in wanted("type"):
            return False
        if "effect" in filters and not wanted("effect") & set(effects.get(strain["id"], [])):
            return False
        if "flavor" in filters and not wanted("flavor") & set(flavors.get(strain["id"], [])):
            return False
        return all(
            compare(float(strain[column]), float(filters[name]))
            for name, (column, compare) in RANGES.items()
            if name in filters
        )

    chosen = [strain for strain in dataset.strains if matches(strain)]
    return sorted(chosen, key=lambda strain: (strain["name"].lower(), strain["id"]))


def _slugs(rows: list[Any]) -> list[str]:
    return [row["slug"] if isinstance(row, dict) else row.slug for row in rows]


def _all(db: Connection, **filters: Any) -> list[StrainRow]:
    chosen = StrainFilters.create(**filters)
    return walk(lambda page: list_strains(db, chosen, page))


def test_every_strain_is_listed_by_lower_case_name_then_id(
    db: Connection, dataset: Dataset
) -> None:
    found = _all(db)
    assert len(found) == 150
    assert _slugs(found) == _slugs(_expected(dataset))
    keys = [(strain.name.lower(), strain.id) for strain in found]
    assert keys == sorted(keys)


def test_a_listed_strain_carries_its_columns_and_its_traits_in_position_order(
    db: Connection, dataset: Dataset
) -> None:
    effects, flavors = _traits(dataset.strain_effects), _traits(dataset.strain_flavors)
    by_id = {strain["id"]: strain for strain in dataset.strains}
    stamps = dict(db.execute(select(Strain.id, Strain.updated_at)).all())
    for row in _all(db):
        source = by_id[row.id]
        assert row == StrainRow(
            id=source["id"],
            slug=source["slug"],
            name=source["name"],
            type=source["type"],
            thc=source["thc"],
            cbd=source["cbd"],
            description=source["description"],
            rating=source["rating"],
            review_count=source["review_count"],
            effects=effects.get(source["id"], []),
            flavors=flavors.get(source["id"], []),
            dominant_terpene=_dominant(source["chemistry"]),
            ratio=_ratio(source["chemistry"]),
            origin=source["origin"],
            updated_at=stamps[row.id],
        )


def _dominant(chemistry: dict[str, Any] | None) -> str | None:
    """The chemistry's first terpene (they are stored highest median first)."""
    return chemistry["terpenes"][0]["key"] if chemistry and chemistry["terpenes"] else None


def _ratio(chemistry: dict[str, Any] | None) -> str | None:
    """One total dominant when at least twice the other, on the medians."""
    if chemistry is None:
        return None
    thc, cbd = chemistry["total_thc"]["p50"], chemistry["total_cbd"]["p50"]
    if thc != cbd and thc >= 2 * cbd:
        return "thc_dominant"
    if thc != cbd and cbd >= 2 * thc:
        return "cbd_dominant"
    return "balanced"


@pytest.mark.parametrize(
    ("given", "folded", "count"),
    [
        ("indica", "indica", 49),
        ("SATIVA", "sativa", 37),
        (" Hybrid ", "hybrid", 64),
        ("sativa", "sativa", 37),
        ("hybrid", "hybrid", 64),
        ("Sativa", "sativa", 37),
        ("hYbRiD", "hybrid", 64),
    ],
)
def test_type_filter_ignores_case_and_keeps_exactly_that_type(
    db: Connection, dataset: Dataset, given: str, folded: str, count: int
) -> None:
    found = _all(db, type=given)
    assert _slugs(found) == _slugs(_expected(dataset, type=folded))
    assert len(found) == count
    assert {strain.type for strain in found} == {folded}


@pytest.mark.parametrize(
    ("param", "given", "folded"),
    [
        ("effect", "relaxed", "relaxed"),
        ("effect", "RELAXED", "relaxed"),
        ("effect", " Creative ", "creative"),
        ("effect", "SLEEPY", "sleepy"),
        ("flavor", "sweet", "sweet"),
        ("flavor", "Earthy", "earthy"),
    ],
)
def test_effect_and_flavor_filters_ignore_case_and_keep_strains_with_that_trait(
    db: Connection, dataset: Dataset, param: str, given: str, folded: str
) -> None:
    found = _all(db, **{param: given})
    expected = _expected(dataset, **{param: folded})
    assert len(expected) >= 30, "a common trait, so the list spans pages"
    assert _slugs(found) == _slugs(expected)
    assert all(folded in getattr(strain, f"{param}s") for strain in found)


@pytest.mark.parametrize("word", ["zesty-bubblegum", "sleepy9", "a"])
def test_an_effect_or_flavor_no_strain_has_gives_an_empty_page_with_total_zero(
    db: Connection, word: str
) -> None:
    for param in ("effect", "flavor"):
        page = list_strains(db, StrainFilters.create(**{param: word}), PageRequest.build())
        assert (page.items, page.total) == ([], 0)


@pytest.mark.parametrize(
    ("param", "given", "word"),
    [
        ("effect", "aroused", "aroused"),
        ("flavor", "VANILLA", "vanilla"),
        ("flavor", "coffee", "coffee"),
    ],
)
def test_a_rare_effect_or_flavor_keeps_exactly_the_strains_having_it(
    db: Connection, dataset: Dataset, param: str, given: str, word: str
) -> None:
    found = _all(db, **{param: given})
    assert found
    assert all(word in getattr(strain, f"{param}s") for strain in found)
    expected = _expected(dataset, **{param: word})
    assert len(found) == len(expected)
    assert set(_slugs(found)) == set(_slugs(expected))


@pytest.mark.parametrize(("param", "word"), [("effect", "earthy"), ("flavor", "relaxed")])
def test_a_flavor_word_as_an_effect_or_an_effect_word_as_a_flavor_gives_an_empty_page(
    db: Connection, param: str, word: str
) -> None:
    page = list_strains(db, StrainFilters.create(**{param: word}), PageRequest.build())
    assert (page.items, page.total, page.limit, page.offset) == ([], 0, 20, 0)


# Combinations of filters, each a different statement shape (a trait filter walks the name
# order and counts from the trait's own rows).
COMBINED = [
    pytest.param({"effect": "happy", "flavor": "sweet"}, id="effect+flavor"),
    pytest.param({"effect": "relaxed", "type": "indica"}, id="effect+type"),
    pytest.param({"flavor": "earthy", "type": "hybrid", "thc_min": 18.0}, id="flavor+type+thc"),
    pytest.param({"effect": "uplifted", "cbd_max": 0.3, "thc_max": 22.0}, id="effect+ranges"),
    pytest.param(
        {"effect": "relaxed", "flavor": "earthy", "type": "indica", "thc_min": 10.0},
        id="effect+flavor+type+thc",
    ),
    pytest.param({"type": "sativa", "thc_min": 15.0, "thc_max": 25.0}, id="type+thc"),
    pytest.param({"cbd_min": 0.5}, id="cbd_min"),
]


# Several values of a filter (any of them), with the others.
ANY_OF = [
    pytest.param({"effect": "happy,relaxed"}, id="effects"),
    pytest.param({"flavor": "earthy,citrus", "thc_min": 18.0}, id="flavors+thc"),
    pytest.param({"effect": "happy,uplifted", "flavor": "sweet"}, id="effects+flavor"),
    pytest.param({"effect": "relaxed", "flavor": "earthy,sweet"}, id="effect+flavors"),
    pytest.param(
        {"effect": "euphoric,relaxed", "type": "indica,hybrid", "cbd_max": 1.0},
        id="effects+types+cbd",
    ),
]


@pytest.mark.parametrize("filters", [*COMBINED, *ANY_OF])
@pytest.mark.parametrize(("limit", "offset"), [(3, 0), (5, 4), (100, 0)])
def test_trait_filters_with_any_of_and_ranges_page_and_count_like_brute_force(
    db: Connection, dataset: Dataset, filters: dict, limit: int, offset: int
) -> None:
    expected = _expected(dataset, **filters)
    assert expected, "the combination matches some strains"
    page = list_strains(db, StrainFilters.create(**filters), PageRequest.build(limit, offset))
    assert _slugs(page.items) == _slugs(window(expected, limit, offset))
    assert page.total == len(expected)


@pytest.mark.parametrize("filters", COMBINED)
def test_filters_combine_with_and(db: Connection, dataset: Dataset, filters: dict) -> None:
    expected = _expected(dataset, **filters)
    assert expected, "the combination matches some strains"
    assert _slugs(_all(db, **filters)) == _slugs(expected)


@pytest.mark.parametrize("filters", [pytest.param({}, id="none"), *COMBINED])
@pytest.mark.parametrize(("limit", "offset"), [(3, 0), (3, 2), (1, 5), (4, 1_000)])
def test_every_window_of_a_filtered_list_holds_its_slice_and_the_full_total(
    db: Connection, dataset: Dataset, filters: dict, limit: int, offset: int
) -> None:
    expected = _expected(dataset, **filters)
    page = list_strains(db, StrainFilters.create(**filters), PageRequest.build(limit, offset))
    assert _slugs(page.items) == _slugs(window(expected, limit, offset))
    assert (page.total, page.limit, page.offset) == (len(expected), limit, offset)


def test_thc_bounds_equal_to_a_strains_value_include_it(db: Connection, dataset: Dataset) -> None:
    value = sorted(strain["thc"] for strain in dataset.strains)[75]
    found = _all(db, thc_min=value, thc_max=value)
    assert found, "a bound equal to a strain's THC includes it"
    assert _slugs(found) == _slugs(_expected(dataset, thc_min=value, thc_max=value))
    assert {strain.thc for strain in found} == {value}


@pytest.mark.parametrize(
    ("low", "high"), [(20.0, None), (None, 10.0), (0.0, 100.0), (0.5, 1.0), (25.25, None)]
)
def test_thc_range_is_inclusive_and_every_strain_lies_inside_it(
    db: Connection, dataset: Dataset, low: float | None, high: float | None
) -> None:
    found = _all(db, thc_min=low, thc_max=high)
    lo = low if low is not None else 0.0
    hi = high if high is not None else 100.0
    assert all(lo <= strain.thc <= hi for strain in found)
    assert len(found) == sum(1 for strain in dataset.strains if lo <= strain["thc"] <= hi)


@pytest.mark.parametrize(
    ("low", "high"), [(5.0, None), (None, 0.3), (1.0, 2.0), (0.0, 0.2), (0.0, 100.0)]
)
def test_cbd_range_is_inclusive(
    db: Connection, dataset: Dataset, low: float | None, high: float | None
) -> None:
    filters = {"cbd_min": low, "cbd_max": high}
    given = {name: value for name, value in filters.items() if value is not None}
    expected = _expected(dataset, **given)
    assert expected
    assert _slugs(_all(db, **filters)) == _slugs(expected)


def test_every_filter_at_once_combines_with_and(db: Connection, dataset: Dataset) -> None:
    found = _all(
        db,
        type="Hybrid",
        effect="happy",
        flavor="sweet",
        thc_min=15.0,
        thc_max=25.0,
        cbd_max=1.0,
    )
    for strain in found:
        assert strain.type == "hybrid"
        assert "happy" in strain.effects
        assert "sweet" in strain.flavors
        assert 15 <= strain.thc <= 25
        assert strain.cbd <= 1
    expected = _expected(
        dataset,
        type="hybrid",
        effect="happy",
        flavor="sweet",
        thc_min=15.0,
        thc_max=25.0,
        cbd_max=1.0,
    )
    assert expected, "the combination should match something in the tiny dataset"
    assert sorted(_slugs(found)) == sorted(_slugs(expected))


@pytest.mark.parametrize(
    "filters",
    [
        {"effect": "happy"},
        {"flavor": "sweet"},
        {"effect": "relaxed", "flavor": "earthy"},
        {"effect": "happy", "type": "indica", "thc_min": 18.0},
        {"flavor": "citrus", "cbd_min": 0.5, "cbd_max": 12.0},
        {"effect": "euphoric", "flavor": "sweet", "thc_max": 24.0},
        {"type": "hybrid", "thc_min": 10.0},
    ],
)
def test_the_total_of_a_full_first_page_counts_every_match(
    db: Connection, dataset: Dataset, filters: dict
) -> None:
    page = list_strains(db, StrainFilters.create(**filters), PageRequest.build(1, 0))
    expected = len(_expected(dataset, **filters))
    assert expected > 1, "the filters should match several strains of the tiny dataset"
    assert page.total == expected
    assert len(page.items) == 1


@pytest.mark.parametrize(
    ("values", "param", "message"),
    [
        ({"type": "kush"}, "type", "type must be one of: indica, sativa, hybrid"),
        ({"type": ""}, "type", "type must be one of: indica, sativa, hybrid"),
        ({"type": "indica,kush"}, "type", "type must be one of: indica, sativa, hybrid"),
        ({"thc_min": -1.0}, "thc_min", "thc_min must be a number from 0 to 100"),
        ({"thc_max": 100.01}, "thc_max", "thc_max must be a number from 0 to 100"),
        ({"cbd_min": float("inf")}, "cbd_min", "cbd_min must be a number from 0 to 100"),
        ({"cbd_max": float("nan")}, "cbd_max", "cbd_max must be a number from 0 to 100"),
        ({"thc_min": 20.0, "thc_max": 10.0}, "thc_min", "thc_min must not be greater than thc_max"),
        ({"cbd_min": 2.0, "cbd_max": 1.0}, "cbd_min", "cbd_min must not be greater than cbd_max"),
        (
            {"effect": "relax%"},
            "effect",
            "effect must be a lowercase word such as relaxed or earthy (letters, digits, spaces "
            "or hyphens, at most 40 characters)",
        ),
        (
            {"flavor": "_"},
            "flavor",
            "flavor must be a lowercase word such as relaxed or earthy (letters, digits, spaces "
            "or hyphens, at most 40 characters)",
        ),
        (
            {"flavor": "x" * 41},
            "flavor",
            "flavor must be a lowercase word such as relaxed or earthy (letters, digits, spaces "
            "or hyphens, at most 40 characters)",
        ),
    ],
)
def test_bad_filters_raise_invalid_parameter_naming_it(
    values: dict, param: str, message: str
) -> None:
    with pytest.raises(InvalidParameter) as raised:
        StrainFilters.create(**values)
    assert (raised.value.param, raised.value.message, raised.value.code) == (param, message, 400)


def test_percent_bounds_of_0_and_100_are_accepted_and_match_every_strain(db: Connection) -> None:
    filters = {"thc_min": 0.0, "thc_max": 100.0, "cbd_min": 0.0, "cbd_max": 100.0}
    page = list_strains(db, StrainFilters.create(**filters), PageRequest.build(1, 0))
    assert page.total == 150
