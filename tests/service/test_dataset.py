"""The full demo dataset, generated and loaded into SQLite once, checked through the database."""

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from importlib import resources
from pathlib import Path

import pytest
import zipcodes
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from models import (
    DatasetInfo,
    Deal,
    Dispensary,
    Doctor,
    Law,
    MenuItem,
    Review,
    Strain,
    StrainEffect,
    StrainFlavor,
    StrainTerpene,
)
from models.base import Base
from models.db import make_engine, make_session_factory
from seed import Dataset, generate, load_dataset
from seed.generate import EFFECTS, FLAVORS, TERPENES
from seed.geography import population
from service.vocab import DEAL_CATEGORIES

pytestmark = pytest.mark.full_dataset

TODAY = date(2026, 1, 15)
HOURS = re.compile(r"^(\d{1,2}):(\d{2})-(\d{2}):(\d{2})$")
ADDRESS = re.compile(r"^\d+ [A-Za-z0-9 ]+, [A-Za-z ]+, [A-Z]{2} \d{5}$")
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
PHONE = re.compile(r"^\((\d{3})\) 555-01\d{2}$")


@dataclass
class Loaded:
    dataset: Dataset
    engine: Engine
    counts: dict[str, int]
    progress: Counter[str]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Loaded]:
    dataset = generate(scale="full", today=TODAY)
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('full') / 'full.db'}")
    progress: Counter[str] = Counter()
    counts = load_dataset(engine, dataset, progress=lambda t, n: progress.update({t: n}))
    yield Loaded(dataset, engine, counts, progress)
    engine.dispose()


@pytest.fixture
def session(loaded: Loaded) -> Iterator[Session]:
    with make_session_factory(loaded.engine)() as db:
        yield db


@pytest.fixture(scope="module")
def laws() -> dict[str, dict]:
    text = resources.files("seed").joinpath("data").joinpath("laws.json").read_text("utf-8")
    return {record["stateCode"]: record for record in json.loads(text)}


@pytest.fixture(scope="module")
def zip_records() -> dict[str, dict]:
    return {record["zip_code"]: record for record in zipcodes.list_all()}


def _count(session: Session, model: type[Base]) -> int:
    return session.scalar(select(func.count()).select_from(model))


def _by_state(session: Session, model: type[Dispensary] | type[Doctor]) -> dict[str, int]:
    return dict(session.execute(select(model.state, func.count()).group_by(model.state)).all())


def test_full_scale_reaches_the_promised_sizes(session: Session) -> None:
    assert _count(session, Strain) > 5600
    assert _count(session, Dispensary) > 6800
    assert _count(session, Doctor) > 650
    assert _count(session, Deal) >= 3000
    assert _count(session, Law) == 56


def test_load_reports_every_table_and_its_progress(loaded: Loaded) -> None:
    assert loaded.counts == loaded.dataset.counts()
    assert dict(loaded.progress) == loaded.counts
    assert loaded.counts["strains"] == 5700
    assert loaded.counts["dispensaries"] == 6900
    assert loaded.counts["doctors"] == 720
    assert loaded.counts["deals"] == 5600


def test_dataset_info_records_the_first_version_seed_and_day(session: Session) -> None:
    (info,) = session.scalars(select(DatasetInfo)).all()
    assert (info.version, info.source, info.seed, info.reference_day) == (
        1, "demo-seed", 2026, TODAY,
    )  # fmt: skip


def test_laws_equal_the_law_file(session: Session, laws: dict[str, dict]) -> None:
    rows = session.scalars(select(Law).order_by(Law.state_code)).all()
    assert [row.state_code for row in rows] == sorted(laws)
    for row in rows:
        record = laws[row.state_code]
        assert row.state == record["state"]
        assert (row.recreational, row.medical, row.delivery_legal, row.home_grow) == (
            record["recreational"], record["medical"], record["delivery_legal"],
            record["home_grow"],
        )  # fmt: skip
        assert row.possession_limit_oz == record["possession_limit_oz"]
        assert row.home_grow_plants == record["home_grow_plants"]
        assert row.updated == date.fromisoformat(record["updated"])
        assert (row.notes, row.confidence, row.sources) == (
            record["notes"], record["confidence"], record["sources"],
        )  # fmt: skip


@pytest.mark.parametrize(
    ("model", "pattern"),
    [(Dispensary, r"^disp_\d+$"), (Deal, r"^deal_\d+$"), (Doctor, r"^doc_\d+$")],
)
def test_public_ids_are_well_formed_and_unique(
    session: Session, model: type[Dispensary] | type[Deal] | type[Doctor], pattern: str
) -> None:
    ids = session.scalars(select(model.public_id)).all()
    assert all(re.match(pattern, public_id) for public_id in ids)
    assert len(set(ids)) == len(ids) == _count(session, model)


def test_strain_names_and_slugs_are_unique_and_slugs_url_safe(session: Session) -> None:
    rows = session.execute(select(Strain.name, Strain.slug)).all()
    assert len({name for name, _ in rows}) == len(rows) == 5700
    assert len({name.lower() for name, _ in rows}) == 5700
    assert len({slug for _, slug in rows}) == 5700
    assert all(SLUG.match(slug) for _, slug in rows)
    assert session.scalar(select(Strain.slug).where(Strain.name == "Gorilla Glue #4")) == (
        "gorilla-glue-4"
    )


@pytest.mark.parametrize("model", [Dispensary, Doctor])
def test_every_listing_sits_at_its_zip_codes_real_place(
    session: Session, zip_records: dict[str, dict], model: type[Dispensary] | type[Doctor]
) -> None:
    rows = session.execute(
        select(model.zip, model.city, model.city_key, model.state, model.lat, model.lng)
    ).all()
    for zip_code, city, city_key, state, lat, lng in rows:
        record = zip_records[zip_code]
        assert (city, state, lat, lng) == (
            record["city"], record["state"], float(record["lat"]), float(record["long"]),
        )  # fmt: skip
        assert record["active"]
        assert record["zip_code_type"] in ("STANDARD", "PO BOX")
        assert city_key == city.lower()


def test_addresses_read_number_street_city_state_zip(session: Session) -> None:
    shops = session.scalars(select(Dispensary)).all()
    assert all(ADDRESS.match(shop.address) for shop in shops)
    first = session.get(Dispensary, 1)
    assert first.address == f"{first.street}, {first.city}, {first.state} {first.zip}"


def test_dispensaries_exist_exactly_where_a_program_exists(
    session: Session, laws: dict[str, dict]
) -> None:
    programs = {code for code, law in laws.items() if law["medical"] or law["recreational"]}
    assert set(_by_state(session, Dispensary)) == programs
    assert len(programs) == 45
    assert "ID" not in programs


def test_dispensary_types_follow_each_law(session: Session, laws: dict[str, dict]) -> None:
    pairs = session.execute(select(Dispensary.state, Dispensary.type).distinct()).all()
    for state, kind in pairs:
        expected = {"recreational", "both"} if laws[state]["recreational"] else {"medical"}
        assert kind in expected, (state, kind)
    assert {kind for state, kind in pairs if state == "CA"} == {"recreational", "both"}
    assert {kind for state, kind in pairs if state == "TX"} == {"medical"}


def test_delivery_only_where_legal_and_for_a_minority(
    session: Session, laws: dict[str, dict]
) -> None:
    rows = session.execute(select(Dispensary.state, Dispensary.delivery)).all()
    assert not [s for s, delivery in rows if delivery and not laws[s]["delivery_legal"]]
    legal = [delivery for s, delivery in rows if laws[s]["delivery_legal"]]
    assert 0.35 < sum(legal) / len(legal) < 0.45


def test_doctors_practise_in_every_medical_jurisdiction_and_nowhere_else(
    session: Session, laws: dict[str, dict]
) -> None:
    medical = {code for code, law in laws.items() if law["medical"]}
    assert set(_by_state(session, Doctor)) == medical


def test_listing_counts_follow_population(session: Session, laws: dict[str, dict]) -> None:
    counts = _by_state(session, Dispensary)
    assert (counts["CA"], counts["TX"], counts["NV"], counts["VI"], counts["MP"]) == (
        972, 717, 76, 2, 1,
    )  # fmt: skip
    assert counts["CA"] > counts["NY"] > counts["NV"]
    total_pop = sum(population(code) for code in counts)
    for code, count in counts.items():
        quota = 6900 * population(code) / total_pop
        # Within one listing or 10 % of the population share, whichever is larger.
        assert abs(count - quota) <= max(1.0, 0.1 * quota), (code, count, quota)
    doctors = _by_state(session, Doctor)
    assert doctors["CA"] > doctors["NV"] >= 1


def test_hours_are_24_hour_spans_on_known_days(session: Session) -> None:
    days = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    closed_sundays = late_weekends = shops = 0
    for hours in session.scalars(select(Dispensary.hours)):
        shops += 1
        assert set(hours) <= set(days)
        assert len(hours) >= 5
        closed_sundays += "sun" not in hours
        for day, span in hours.items():
            open_h, open_m, close_h, close_m = map(int, HOURS.match(span).groups())
            assert close_h < 24
            assert max(open_m, close_m) < 60
            if (close_h, close_m) < (open_h, open_m):  # past midnight: late Fridays and Saturdays
                assert day in ("fri", "sat"), span
                assert (close_h, close_m) in ((1, 0), (2, 0)), span
                assert hours["fri"] == hours["sat"]
                late_weekends += day == "fri"
            else:
                assert (close_h, close_m) > (open_h, open_m)
    assert 300 < closed_sundays < 3000
    assert 0.1 < late_weekends / shops < 0.25


def test_phones_use_a_real_area_code_and_the_fictional_range(
    session: Session, zip_records: dict[str, dict]
) -> None:
    for zip_code, phone in session.execute(select(Dispensary.zip, Dispensary.phone)):
        area = PHONE.match(phone).group(1)
        assert area in zip_records[zip_code]["area_codes"]


def test_websites_are_unique_on_the_reserved_example_tld(session: Session) -> None:
    sites = session.scalars(select(Dispensary.website)).all()
    assert len(set(sites)) == len(sites)
    assert all(re.match(r"^https://[a-z0-9]+(-[a-z0-9]+)*\.example$", site) for site in sites)


def test_ratings_and_review_counts_stay_in_range(session: Session) -> None:
    assert session.execute(
        select(func.min(Strain.rating), func.max(Strain.rating), func.max(Strain.review_count))
    ).one() == (0.0, 5.0, 3000)
    rated = session.scalars(select(Strain.rating).where(Strain.review_count > 0)).all()
    assert sum(3.5 <= r <= 5 for r in rated) / len(rated) > 0.9
    low, high = session.execute(
        select(func.min(Dispensary.rating), func.max(Dispensary.rating))
    ).one()
    assert low >= 2.0
    assert high <= 5.0


def test_potency_has_a_realistic_shape(session: Session) -> None:
    rows = session.execute(select(Strain.thc, Strain.cbd)).all()
    assert all(0 <= thc <= 35 and 0 <= cbd <= 25 for thc, cbd in rows)
    assert all(round(thc, 1) == thc and round(cbd, 1) == cbd for thc, cbd in rows)
    assert sum(thc >= 15 for thc, _ in rows) / len(rows) > 0.75
    cbd_dominant = sum(cbd >= 8 and thc < 8 for thc, cbd in rows) / len(rows)
    assert 0.06 < cbd_dominant < 0.10
    assert Counter(session.scalars(select(Strain.type))).most_common(1)[0][0] == "hybrid"


@pytest.mark.parametrize(
    ("model", "vocabulary", "most"),
    [(StrainEffect, EFFECTS, 4), (StrainFlavor, FLAVORS, 4), (StrainTerpene, TERPENES, 3)],
)
def test_traits_come_from_the_vocabularies(
    session: Session, model: type[StrainEffect], vocabulary: tuple[str, ...], most: int
) -> None:
    assert set(session.scalars(select(model.name).distinct())) == set(vocabulary)
    per_strain = session.execute(
        select(func.count(), func.max(model.position)).group_by(model.strain_id)
    ).all()
    assert len(per_strain) == 5700
    assert all(2 <= n <= most and top == n - 1 for n, top in per_strain)


@pytest.mark.parametrize("model", [StrainEffect, StrainFlavor])
def test_filtered_traits_carry_their_strains_type_thc_and_cbd(
    session: Session, model: type[StrainEffect]
) -> None:
    pairs = session.execute(
        select(model.type, model.thc, model.cbd, Strain.type, Strain.thc, Strain.cbd).join(
            Strain, Strain.id == model.strain_id
        )
    ).all()
    assert len(pairs) > 10_000
    assert [row for row in pairs if tuple(row[:3]) != tuple(row[3:])] == []


@pytest.mark.parametrize(
    ("model", "column"), [(StrainEffect, "effect_list"), (StrainFlavor, "flavor_list")]
)
def test_strains_list_their_traits_in_position_order(
    session: Session, model: type[StrainEffect], column: str
) -> None:
    expected: dict[int, list[str]] = {}
    for strain_id, name in session.execute(
        select(model.strain_id, model.name).order_by(model.strain_id, model.position)
    ):
        expected.setdefault(strain_id, []).append(name)
    listed = dict(session.execute(select(Strain.id, getattr(Strain, column))).all())
    assert len(listed) == 5700
    assert listed == {strain_id: expected.get(strain_id, []) for strain_id in listed}


def test_deals_use_the_seven_categories_and_expire_around_the_reference_day(
    session: Session,
) -> None:
    assert set(session.scalars(select(Deal.category).distinct())) == set(DEAL_CATEGORIES)
    expiries = session.scalars(select(Deal.expires)).all()
    assert min(expiries) >= TODAY - timedelta(days=30)
    assert max(expiries) <= TODAY + timedelta(days=60)
    assert TODAY not in expiries
    expired = sum(day < TODAY for day in expiries) / len(expiries)
    assert 0.07 < expired < 0.13
    discounts = set(session.scalars(select(Deal.discount).distinct()))
    assert {"20% off", "BOGO", "$10 off"} <= discounts


def test_menus_hold_8_to_20_items_and_flower_names_real_strains(session: Session) -> None:
    sizes = session.scalars(
        select(func.count()).select_from(MenuItem).group_by(MenuItem.dispensary_id)
    ).all()
    assert len(sizes) == 6900
    assert (min(sizes), max(sizes)) == (8, 20)
    mismatched = session.scalar(
        select(func.count())
        .select_from(MenuItem)
        .join(Strain, Strain.id == MenuItem.strain_id)
        .where(Strain.name != MenuItem.name)
    )
    assert mismatched == 0
    by_category = dict(
        session.execute(
            select(MenuItem.category, func.count(MenuItem.strain_id)).group_by(MenuItem.category)
        ).all()
    )
    assert set(by_category) == set(DEAL_CATEGORIES)
    flower = by_category.pop("flower")
    assert flower == session.scalar(
        select(func.count()).select_from(MenuItem).where(MenuItem.category == "flower")
    )
    assert set(by_category.values()) == {0}
    prices = session.scalars(select(MenuItem.price)).all()
    assert all(p > 0 and round(p, 2) == p for p in prices)


def test_menu_positions_run_0_1_2_within_each_dispensary(session: Session) -> None:
    # The API reads a menu's first N items as position < N (service.dispensaries).
    spans = session.execute(
        select(func.min(MenuItem.position), func.max(MenuItem.position), func.count()).group_by(
            MenuItem.dispensary_id
        )
    ).all()
    assert len(spans) == 6900
    assert {(low, high) for low, high, size in spans} == {(0, size - 1) for _, _, size in spans}


def test_reviews_are_recent_and_well_formed(session: Session) -> None:
    rows = session.execute(select(Review.dispensary_id, Review.rating, Review.author, Review.date))
    per_shop: Counter[int] = Counter()
    for shop_id, rating, author, day in rows:
        per_shop[shop_id] += 1
        assert 1 <= rating <= 5
        assert re.match(r"^[A-Z][a-z]+ [A-Z]\.$", author)
        assert TODAY - timedelta(days=730) <= day <= TODAY
    assert len(per_shop) == 6900
    assert (min(per_shop.values()), max(per_shop.values())) == (2, 8)
    counts = dict(session.execute(select(Dispensary.id, Dispensary.review_count)).all())
    assert all(counts[shop] >= n for shop, n in per_shop.items())


def test_doctors_have_plausible_fees_ratings_and_names(session: Session) -> None:
    doctors = session.scalars(select(Doctor)).all()
    assert all(49 <= d.price <= 249 and d.price == int(d.price) for d in doctors)
    assert all(3.0 <= d.rating <= 5.0 for d in doctors)
    assert all(re.match(r"^Dr\. [A-Z][a-z]+ [A-Z][A-Za-z']+$", d.name) for d in doctors)
    assert 0.4 < sum(d.telehealth for d in doctors) / len(doctors) < 0.6


def test_database_rows_equal_the_generated_rows(loaded: Loaded) -> None:
    with loaded.engine.connect() as conn:
        for name, rows in loaded.dataset.tables().items():
            table = Base.metadata.tables[name]
            # The stamps come from the change log (tests/service/test_change_log.py); a sort_key
            # the rows do not carry (a strain's, a dispensary's, ...) is derived from the row's
            # name by the column default. Trait rows carry their strain's, and it is compared
            # like any other column.
            defaulted = "sort_key" in table.c and "sort_key" not in (rows[0] if rows else {})
            stamps = ("updated_at", "menu_updated_at")
            left_out = (*stamps, "sort_key") if defaulted else stamps
            columns = [c for c in table.c if c.name not in left_out]
            stored = conn.execute(select(*columns).order_by(*table.primary_key.columns)).all()
            keys = [c.name for c in columns]
            expected = sorted(rows, key=lambda r: tuple(r[c.name] for c in table.primary_key))
            assert [dict(zip(keys, row, strict=True)) for row in stored] == expected, name
            if defaulted:
                pairs = conn.execute(select(table.c.name, table.c.sort_key)).all()
                assert all(key == name.lower() for name, key in pairs), name


def test_generating_again_gives_identical_rows(loaded: Loaded) -> None:
    assert generate(scale="full", today=TODAY) == loaded.dataset


def test_reloading_bumps_the_version_and_a_failed_load_changes_nothing(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'tiny.db'}")
    tiny = generate(scale="tiny", seed=3, today=TODAY)
    load_dataset(engine, tiny)
    load_dataset(engine, tiny)

    def fail_on_dispensaries(table: str, _rows: int) -> None:
        if table == "dispensaries":
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        load_dataset(
            engine, generate(scale="tiny", seed=4, today=TODAY), progress=fail_on_dispensaries
        )
    with make_session_factory(engine)() as db:
        assert db.scalars(select(DatasetInfo.version)).all() == [2]
        assert db.scalar(select(DatasetInfo.seed)) == 3
        assert _count(db, Dispensary) == 120
        assert db.scalar(select(Strain.name).where(Strain.id == 1)) == tiny.strains[0]["name"]
    engine.dispose()
