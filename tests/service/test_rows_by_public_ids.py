"""Lookups by public id as list rows (what GraphQL search items are built from): each finds the
row the kind's list shows, ids of another shape or unknown ids find nothing."""

from datetime import date

from sqlalchemy import Connection

from service.deals import deal_rows_by_public_ids, list_deals
from service.dispensary_lists import list_dispensaries
from service.dispensary_rows import dispensary_rows_by_public_ids
from service.doctors import doctor_rows_by_public_ids, list_doctors
from service.filters import DealFilters, DispensaryFilters, DoctorFilters
from service.paging import PageRequest

PAGE = PageRequest.build(5, 0)


def test_dispensary_rows_equal_the_list_rows(db: Connection) -> None:
    listed = list_dispensaries(db, DispensaryFilters.create(state="CA"), PAGE).items
    assert listed
    wanted = [row.public_id for row in listed]
    found = dispensary_rows_by_public_ids(db, [*wanted, "disp_999999999", "doc_1", "x"])
    assert found == {row.public_id: row for row in listed}


def test_doctor_rows_equal_the_list_rows(db: Connection) -> None:
    listed = list_doctors(db, DoctorFilters.create(), PAGE).items
    assert listed
    found = doctor_rows_by_public_ids(db, [row.public_id for row in listed] + ["disp_1001"])
    assert found == {row.public_id: row for row in listed}


def test_deal_rows_equal_the_list_rows(db: Connection, reference_day: date) -> None:
    listed = list_deals(db, DealFilters.create(), PAGE, today=reference_day).items
    assert listed
    found = deal_rows_by_public_ids(db, [row.public_id for row in listed] + ["deal_0", "deal_"])
    assert found == {row.public_id: row for row in listed}


def test_no_ids_or_none_of_the_kind_read_nothing(db: Connection) -> None:
    assert dispensary_rows_by_public_ids(db, []) == {}
    assert doctor_rows_by_public_ids(db, ["disp_1"]) == {}
    assert deal_rows_by_public_ids(db, ["doc_1", "deal_1' OR 1=1"]) == {}
