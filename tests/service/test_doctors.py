"""service.doctors.list_doctors on the shared tiny dataset: filters, order, errors.

Expected rows come from the generated dataset in plain Python: doctors whose state, city
(compared in lower case with single spaces) and telehealth match, by name in lower case, then id.
"""

from typing import Any

import pytest
from sqlalchemy import Connection, select

from models import Doctor
from seed import Dataset
from service import bounds
from service.doctors import DoctorRow, list_doctors
from service.errors import InvalidParameter
from service.filters import DoctorFilters
from service.paging import PageRequest
from tests.filters import doctor_filters
from tests.service.pages import walk


def _expected(dataset: Dataset, **filters: Any) -> list[str]:
    """Public ids of the dataset's doctors matching ``filters`` (normalised), by name."""
    keys = {"state": "state", "city": "city_key", "telehealth": "telehealth"}
    chosen = [
        doctor
        for doctor in dataset.doctors
        if all(doctor[keys[name]] == value for name, value in filters.items())
    ]
    chosen.sort(key=lambda doctor: (doctor["name"].lower(), doctor["id"]))
    return [doctor["public_id"] for doctor in chosen]


def _ids(rows: list[DoctorRow]) -> list[str]:
    return [row.public_id for row in rows]


def _all(db: Connection, **filters: Any) -> list[DoctorRow]:
    chosen = doctor_filters(**filters)
    return walk(lambda page: list_doctors(db, chosen, page), size=50)


def test_every_doctor_is_listed_by_lower_case_name_then_id(
    db: Connection, dataset: Dataset
) -> None:
    found = _all(db)
    assert len(found) == 60
    assert _ids(found) == _expected(dataset)


def test_a_listed_doctor_carries_its_columns(db: Connection, dataset: Dataset) -> None:
    by_id = {doctor["public_id"]: doctor for doctor in dataset.doctors}
    stamps = dict(db.execute(select(Doctor.public_id, Doctor.updated_at)).all())
    for row in _all(db):
        doctor = by_id[row.public_id]
        assert row == DoctorRow(
            public_id=doctor["public_id"],
            name=doctor["name"],
            city=doctor["city"],
            state=doctor["state"],
            telehealth=doctor["telehealth"],
            rating=doctor["rating"],
            price=doctor["price"],
            lat=doctor["lat"],
            lng=doctor["lng"],
            timezone=doctor["timezone"],
            updated_at=stamps[row.public_id],
        )


@pytest.mark.parametrize("name", ["Dr. Michael Yamamoto", "Dr. Keisha Schmidt"])
def test_doctors_sharing_a_name_follow_each_other_by_id(
    db: Connection, dataset: Dataset, name: str
) -> None:
    twins = sorted(doctor["id"] for doctor in dataset.doctors if doctor["name"] == name)
    assert len(twins) == 2
    id_of = {doctor["public_id"]: doctor["id"] for doctor in dataset.doctors}
    ids = [id_of[public_id] for public_id in _ids(_all(db))]
    assert ids.index(twins[1]) == ids.index(twins[0]) + 1


def test_the_doctor_limit_is_clamped_to_50(db: Connection) -> None:
    everyone = DoctorFilters.create()
    page = list_doctors(db, everyone, PageRequest.within(bounds.DOCTORS, 51, None))
    assert (page.total, page.limit, page.offset) == (60, 50, 0)
    assert len(page.items) == 50
    rest = list_doctors(db, everyone, PageRequest.within(bounds.DOCTORS, 100, 50))
    assert (rest.total, rest.limit, rest.offset) == (60, 50, 50)
    assert len(rest.items) == 10


@pytest.mark.parametrize(
    ("given", "code"), [("ca", "CA"), ("TX", "TX"), (" Fl ", "FL"), ("CA", "CA"), ("ak", "AK")]
)
def test_state_filter_ignores_case_and_keeps_only_that_state(
    db: Connection, dataset: Dataset, given: str, code: str
) -> None:
    found = _all(db, state=given)
    assert found
    assert _ids(found) == _expected(dataset, state=code)
    assert {row.state for row in found} == {code}


@pytest.mark.parametrize("code", ["WY", "ks", "AS"])
def test_a_known_state_without_doctors_gives_an_empty_page(db: Connection, code: str) -> None:
    page = list_doctors(db, DoctorFilters.create(state=code), PageRequest.build())
    assert (page.items, page.total) == ([], 0)


@pytest.mark.parametrize("given", ["San Jose", "san jose", "  SAN   jose "])
def test_city_filter_ignores_case_and_extra_spaces(
    db: Connection, dataset: Dataset, given: str
) -> None:
    expected = _expected(dataset, city="san jose")
    assert len(expected) == 2
    assert _ids(_all(db, city=given)) == expected
    assert _ids(_all(db, state="CA", city=given)) == expected
    assert _ids(_all(db, state="TX", city=given)) == []


@pytest.mark.parametrize(("telehealth", "count"), [(True, 32), (False, 28)])
def test_telehealth_filter_keeps_only_matching_doctors(
    db: Connection, dataset: Dataset, telehealth: bool, count: int
) -> None:
    found = _all(db, telehealth=telehealth)
    assert len(found) == count
    assert _ids(found) == _expected(dataset, telehealth=telehealth)


@pytest.mark.parametrize("telehealth", [True, False])
def test_telehealth_combines_with_state(db: Connection, dataset: Dataset, telehealth: bool) -> None:
    expected = _expected(dataset, state="CA", telehealth=telehealth)
    assert expected
    assert _ids(_all(db, state="ca", telehealth=telehealth)) == expected


STATE_CODE = "state must be a two-letter code of a US state, DC or territory (e.g. CA, NY, PR)"


@pytest.mark.parametrize(
    ("values", "param", "message"),
    [
        ({"state": "XX"}, "state", STATE_CODE),
        ({"state": "Texas"}, "state", STATE_CODE),
        ({"state": "T"}, "state", STATE_CODE),
        ({"state": ""}, "state", STATE_CODE),
        ({"city": " \t "}, "city", "city must be a city name of 1 to 80 characters"),
        ({"city": "z" * 81}, "city", "city must be a city name of 1 to 80 characters"),
    ],
)
def test_bad_filters_raise_invalid_parameter_naming_it(
    values: dict, param: str, message: str
) -> None:
    with pytest.raises(InvalidParameter) as raised:
        doctor_filters(**values)
    assert (raised.value.param, raised.value.message, raised.value.code) == (param, message, 400)
