"""Generation of the demo dataset at tiny scale: determinism and cheap invariants (no DB)."""

import json
from datetime import date, datetime, timedelta

import pytest
import zipcodes

from seed import DEFAULT_SEED, Dataset, generate
from seed.generate import EFFECTS, FLAVORS, TERPENES
from seed.geography import jurisdiction_codes, load_laws, population, state_name, zip_pool
from seed.util import apportion, slugify

TODAY = date(2026, 1, 15)


@pytest.fixture(scope="module")
def tiny() -> Dataset:
    return generate(scale="tiny", seed=7, today=TODAY)


def _dump(dataset: Dataset) -> str:
    return json.dumps(dataset.tables(), default=str, sort_keys=False)


def test_same_arguments_give_byte_identical_rows(tiny: Dataset) -> None:
    again = generate(scale="tiny", seed=7, today=TODAY)
    assert again == tiny
    assert _dump(again) == _dump(tiny)


def test_a_different_seed_gives_a_different_dataset(tiny: Dataset) -> None:
    other = generate(scale="tiny", seed=8, today=TODAY)
    assert [s["name"] for s in other.strains] != [s["name"] for s in tiny.strains]
    assert [d["zip"] for d in other.dispensaries] != [d["zip"] for d in tiny.dispensaries]
    assert other.laws == tiny.laws


def test_the_default_seed_is_2026() -> None:
    assert DEFAULT_SEED == 2026


def test_moving_the_reference_day_shifts_dates_and_nothing_else(tiny: Dataset) -> None:
    later = generate(scale="tiny", seed=7, today=TODAY + timedelta(days=1))
    assert later.strains == tiny.strains
    assert later.dispensaries == tiny.dispensaries
    assert [
        d["expires"] - tiny_d["expires"] for d, tiny_d in zip(later.deals, tiny.deals, strict=True)
    ] == [timedelta(days=1)] * len(tiny.deals)
    assert later.reference_day == date(2026, 1, 16)


def test_tiny_scale_has_the_documented_row_counts(tiny: Dataset) -> None:
    counts = tiny.counts()
    assert {k: counts[k] for k in ("laws", "strains", "dispensaries", "doctors", "deals")} == {
        "laws": 56,
        "strains": 150,
        "dispensaries": 120,
        "doctors": 60,
        "deals": 150,
    }
    assert tiny.seed == 7
    assert tiny.scale == "tiny"
    assert tiny.reference_day == TODAY


def test_primary_keys_run_from_one_to_n(tiny: Dataset) -> None:
    for name in ("strains", "dispensaries", "menu_items", "reviews", "deals", "doctors"):
        rows = tiny.tables()[name]
        assert [r["id"] for r in rows] == list(range(1, len(rows) + 1)), name


def test_effect_and_flavor_rows_carry_their_strains_filter_and_order_columns(
    tiny: Dataset,
) -> None:
    strains = {s["id"]: s for s in tiny.strains}
    tables = tiny.tables()
    for name in ("strain_effects", "strain_flavors"):
        assert tables[name]
        for row in tables[name]:
            strain = strains[row["strain_id"]]
            copied = (row["type"], row["thc"], row["cbd"], row["sort_key"])
            assert copied == (strain["type"], strain["thc"], strain["cbd"], strain["name"].lower())


def test_every_jurisdiction_with_a_program_gets_a_dispensary_even_at_tiny_scale(
    tiny: Dataset,
) -> None:
    programs = {law["state_code"] for law in tiny.laws if law["medical"] or law["recreational"]}
    assert len(programs) == 45
    assert {d["state"] for d in tiny.dispensaries} == programs


def test_dispensary_types_follow_each_jurisdictions_law(tiny: Dataset) -> None:
    laws = {law["state_code"]: law for law in tiny.laws}
    for shop in tiny.dispensaries:
        law = laws[shop["state"]]
        expected = {"recreational", "both"} if law["recreational"] else {"medical"}
        assert shop["type"] in expected, shop
        assert not shop["delivery"] or law["delivery_legal"], shop


def test_doctors_practise_only_where_a_medical_program_exists(tiny: Dataset) -> None:
    medical = {law["state_code"] for law in tiny.laws if law["medical"]}
    assert {d["state"] for d in tiny.doctors} == medical


def test_trait_rows_use_the_vocabularies_with_positions_from_zero(tiny: Dataset) -> None:
    for rows, vocabulary, low, high in (
        (tiny.strain_effects, EFFECTS, 2, 4),
        (tiny.strain_flavors, FLAVORS, 2, 4),
        (tiny.strain_terpenes, TERPENES, 2, 3),
    ):
        by_strain: dict[int, list[dict]] = {}
        for row in rows:
            assert row["name"] in vocabulary
            by_strain.setdefault(row["strain_id"], []).append(row)
        assert len(by_strain) == 150
        for traits in by_strain.values():
            assert low <= len(traits) <= high
            assert [t["position"] for t in traits] == list(range(len(traits)))
            assert len({t["name"] for t in traits}) == len(traits)


def test_strain_names_carry_their_flavor() -> None:
    dataset = generate(scale="tiny", seed=DEFAULT_SEED, today=TODAY)
    flavors = {
        s["name"]: [f["name"] for f in dataset.strain_flavors if f["strain_id"] == s["id"]]
        for s in dataset.strains
    }
    assert flavors["Super Lemon Haze"][:2] == ["lemon", "citrus"]
    assert flavors["Grape Ape"][:2] == ["grape", "sweet"]


def test_known_cbd_strains_keep_their_cbd_profile() -> None:
    dataset = generate(scale="tiny", seed=DEFAULT_SEED, today=TODAY)
    strains = {s["name"]: s for s in dataset.strains}
    for name in ("ACDC", "Charlotte's Web", "Cannatonic"):
        assert strains[name]["cbd"] >= 8.0
        assert strains[name]["thc"] < 8.0
    assert strains["Charlotte's Web"]["slug"] == "charlottes-web"


def test_generate_demands_a_plain_date_and_a_known_scale() -> None:
    with pytest.raises(TypeError, match=r"datetime\.date"):
        generate(scale="tiny", today=datetime(2026, 1, 15, 12, 0))
    with pytest.raises(ValueError, match="unknown scale 'huge'"):
        generate(scale="huge", today=TODAY)


def test_apportion_is_proportional_with_a_minimum_and_an_exact_total() -> None:
    shares = apportion({"a": 100, "b": 1, "c": 50, "d": 3}, 20)
    assert shares == {"a": 12, "b": 1, "c": 6, "d": 1}
    assert apportion({"x": 1, "y": 1, "z": 1}, 10) == {"x": 4, "y": 3, "z": 3}
    with pytest.raises(ValueError, match="at least 1"):
        apportion({"x": 1, "y": 1}, 1)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Blue Dream", "blue-dream"),
        ("Gorilla Glue #4", "gorilla-glue-4"),
        ("Charlotte's Web", "charlottes-web"),
        ("AK-47", "ak-47"),
        ("Hearth & Hemp", "hearth-and-hemp"),
    ],
)
def test_slugify_makes_lowercase_hyphenated_ascii(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_law_file_covers_all_56_jurisdictions() -> None:
    laws = load_laws()
    assert [law["stateCode"] for law in laws] == list(jurisdiction_codes())
    assert len(laws) == 56
    assert {law["stateCode"] for law in laws if not (law["medical"] or law["recreational"])} == {
        "AS", "GA", "IA", "ID", "IN", "KS", "NC", "SC", "TN", "WI", "WY",
    }  # fmt: skip


def test_population_and_names_cover_every_jurisdiction() -> None:
    assert sum(population(code) for code in jurisdiction_codes()) == 335_075
    assert population("CA") == 39538
    assert population("MP") == 48
    assert state_name("DC") == "District of Columbia"


def test_zip_pool_holds_real_located_zips_of_the_state() -> None:
    pool = zip_pool("NV")
    assert len(pool) == 145
    for place in pool[:20]:
        (record,) = zipcodes.matching(place.zip)
        assert (record["city"], record["state"], record["zip_code_type"]) == (
            place.city,
            "NV",
            "STANDARD",
        )
        assert (float(record["lat"]), float(record["long"])) == (place.lat, place.lng)


def test_zip_pool_falls_back_to_po_boxes_in_the_northern_mariana_islands() -> None:
    pool = zip_pool("MP")
    assert [p.zip for p in pool] == ["96950", "96951", "96952"]
    assert {p.city for p in pool} == {"Saipan", "Rota", "Tinian"}
    assert all(p.area_codes == ("670",) for p in pool)
