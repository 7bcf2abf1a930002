"""Compiled dumping gives exactly what Marshmallow's own field loop gives, for every body served."""

from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest
from flask import Flask
from marshmallow import Schema, fields
from sqlalchemy.orm import Session

from rest.accel.dumping import _compile, compile_dumps, reference_dump
from rest.envelope import ok, ok_page
from rest.fields import OptionalFloat, Stamp
from rest.schemas import (
    DealSchema,
    DispensaryDetailSchema,
    DispensaryHitSchema,
    DoctorSchema,
    LawSchema,
    Output,
    SearchHitSchema,
    StockistSchema,
    StrainDetailSchema,
    StrainItemSchema,
    UsageSchema,
    detail_envelope,
    page_envelope,
)
from service import deals, dispensaries, dispensary_lists, doctors, laws, search, strains
from service.filters import (
    DealFilters,
    DispensaryFilters,
    DoctorFilters,
    SearchQuery,
    StrainFilters,
)
from service.paging import PageRequest
from tests.filters import dispensary_filters

PAGE = PageRequest(limit=100)


@pytest.fixture(autouse=True)
def _compiled_dumps() -> None:
    """What rest.init_rest does with SPEED_TRICKS on (whether or not an app was built yet)."""
    compile_dumps(Output)


def _bodies(session: Session, today: date) -> dict[str, tuple[type[Schema], Any]]:
    """Every kind of body the REST views build, from the tiny dataset."""
    strain = strains.list_strains(session, StrainFilters(), PageRequest(limit=1)).items[0]
    dispensary = dispensary_lists.list_dispensaries(session, DispensaryFilters(), PAGE).items[0]
    return {
        "strains": (
            page_envelope(StrainItemSchema, "P1"),
            ok_page(strains.list_strains(session, StrainFilters(), PAGE)),
        ),
        "strain": (
            detail_envelope(StrainDetailSchema, "D1"),
            ok(strains.get_strain(session, strain.slug)),
        ),
        "dispensaries": (
            page_envelope(DispensaryHitSchema, "P2"),
            ok_page(dispensary_lists.list_dispensaries(session, DispensaryFilters(), PAGE)),
        ),
        "nearby": (
            page_envelope(DispensaryHitSchema, "P3"),
            ok_page(
                dispensary_lists.list_dispensaries(
                    session, dispensary_filters(zip="80202", radius=500.0), PAGE
                )
            ),
        ),
        "dispensary": (
            detail_envelope(DispensaryDetailSchema, "D2"),
            ok(dispensaries.get_dispensary(session, dispensary.public_id)),
        ),
        "deals": (
            page_envelope(DealSchema, "P4"),
            ok_page(deals.list_deals(session, DealFilters(), PAGE, today=today)),
        ),
        "doctors": (
            page_envelope(DoctorSchema, "P5"),
            ok_page(doctors.list_doctors(session, DoctorFilters(), PAGE)),
        ),
        "law": (detail_envelope(LawSchema, "D3"), ok(laws.get_law(session, "CO"))),
        "search": (
            page_envelope(SearchHitSchema, "P6"),
            ok_page(search.search(session, SearchQuery.create(q="an"), PAGE, today=today)),
        ),
        "usage": (
            detail_envelope(UsageSchema, "D4"),
            ok({"tier": "pro", "limit": 1000, "remaining": 998, "reset": 1_800_000_000}),
        ),
    }


@pytest.mark.parametrize(
    "body",
    [
        "strains",
        "strain",
        "dispensaries",
        "nearby",
        "dispensary",
        "deals",
        "doctors",
        "law",
        "search",
        "usage",
    ],
)
def test_the_compiled_dump_equals_marshmallows(
    session: Session, reference_day: date, body: str
) -> None:
    schema_class, data = _bodies(session, reference_day)[body]
    schema = schema_class()
    compiled = schema.dump(data)
    assert compiled == reference_dump(schema, data)
    assert schema._dump_plan is not None  # the plan was used, not the fallback
    if "meta" in compiled:
        assert len(compiled["data"]) >= 2  # a real page was compared, not an empty one


def test_absent_when_none_fields_are_left_out_not_null(session: Session) -> None:
    plain = dispensary_lists.list_dispensaries(session, DispensaryFilters(), PageRequest(limit=3))
    near = dispensary_lists.list_dispensaries(
        session, dispensary_filters(zip="80202", radius=500.0), PageRequest(limit=3)
    )
    schema = DispensaryHitSchema()
    assert all("distance" not in item for item in schema.dump(plain.items, many=True))
    assert all(isinstance(item["distance"], float) for item in schema.dump(near.items, many=True))


@pytest.mark.parametrize(
    "schema_class",
    [
        StrainItemSchema,
        StrainDetailSchema,
        DispensaryHitSchema,
        StockistSchema,
        DispensaryDetailSchema,
        DealSchema,
        DoctorSchema,
        LawSchema,
    ],
)
def test_every_object_with_change_stamps_is_compiled(schema_class: type[Schema]) -> None:
    assert _compile(schema_class()) is not None


def test_a_stamp_is_written_alike_by_the_plan_and_the_loop() -> None:
    class Stamped(Output):
        updated_at = Stamp()

    schema = Stamped()
    mountain = timezone(timedelta(hours=-7))
    for given in (
        datetime(2026, 11, 27, 10, 4, 11, 123456),  # naive, as SQLite gives it: UTC
        datetime(2026, 11, 27, 3, 4, 11, 123000, tzinfo=mountain),
    ):
        expected = {"updated_at": "2026-11-27T10:04:11.123Z"}
        assert schema.dump({"updated_at": given}) == expected
        assert reference_dump(schema, {"updated_at": given}) == expected
    assert schema._dump_plan is not None


def test_a_schema_with_a_field_the_compiler_does_not_know_falls_back() -> None:
    class WithUrl(Schema):
        site = fields.Url()
        distance = OptionalFloat()

    compile_dumps(WithUrl)
    schema = WithUrl()
    assert _compile(schema) is None
    assert schema.dump({"site": "https://a.example", "distance": None}) == {
        "site": "https://a.example"
    }


@pytest.mark.parametrize(("tricks", "planned"), [(True, True), (False, False)])
def test_the_apps_speed_tricks_setting_chooses_plan_or_loop(
    session: Session, reference_day: date, tricks: bool, planned: bool
) -> None:
    schema_class, data = _bodies(session, reference_day)["dispensaries"]
    schema = schema_class()
    app = Flask(__name__)
    app.config["SPEED_TRICKS"] = tricks
    with app.app_context():
        dumped = schema.dump(data)
    assert dumped == reference_dump(schema, data)
    assert len(dumped["data"]) >= 2
    # The outer envelope and the nested item schema: plans made only with the tricks on.
    item_schema = schema.fields["data"].inner.schema
    assert ("_dump_plan" in vars(schema), "_dump_plan" in vars(item_schema)) == (planned, planned)


@pytest.mark.parametrize(("tricks", "compiled"), [(True, [Output]), (False, [])])
def test_the_app_compiles_the_output_schemas_only_with_speed_tricks_on(
    make_app, monkeypatch: pytest.MonkeyPatch, tricks: bool, compiled: list[type[Schema]]
) -> None:
    calls: list[type[Schema]] = []
    monkeypatch.setattr("rest.compile_dumps", calls.append)
    make_app(SPEED_TRICKS=tricks)
    assert calls == compiled


def test_the_output_schemas_are_stock_marshmallow_schemas() -> None:
    assert Output.__bases__ == (Schema,)
    assert all(issubclass(schema, Output) for schema in (DealSchema, UsageSchema, LawSchema))
