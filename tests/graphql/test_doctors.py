"""GraphQL doctors: rendering of every field, the clamped page, the nested law."""

from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Doctor, Law
from tests.graphql.expected import (
    DOCTOR_FIELDS,
    LAW_FIELDS,
    _all,
    _doctor_dict,
    _law_dict,
    _rest_all,
)


def _doctor_ids(session: Session, *where: Any) -> list[str]:
    return list(
        session.scalars(
            select(Doctor.public_id).where(*where).order_by(func.lower(Doctor.name), Doctor.id)
        )
    )


def test_every_doctor_field_equals_its_row_ordered_by_name_then_id(gql, session: Session) -> None:
    items = _all(gql, "doctors", DOCTOR_FIELDS, page=50)
    rows = {d.public_id: d for d in session.scalars(select(Doctor))}
    assert [i["id"] for i in items] == _doctor_ids(session)
    assert len(items) == 60
    for item in items:
        assert item == _doctor_dict(rows[item["id"]])


def test_doctors_page_limit_is_capped_at_fifty(gql, session: Session) -> None:
    page = gql.data("{ doctors(limit: 100) { total limit offset items { id } } }")["doctors"]
    assert (page["total"], page["limit"], page["offset"]) == (60, 50, 0)
    assert [i["id"] for i in page["items"]] == _doctor_ids(session)[:50]


def test_doctor_law_is_the_law_row_of_the_doctors_state(gql, session: Session) -> None:
    items = _all(gql, "doctors", f"id state law {{ {LAW_FIELDS} }}", page=50)
    laws = {law.state_code: law for law in session.scalars(select(Law))}
    for item in items:
        assert item["law"] == _law_dict(laws[item["state"]])
    assert len({i["state"] for i in items}) > 5


@pytest.mark.parametrize(
    ("arguments", "params"),
    [
        ("telehealth: true", {"telehealth": "true"}),
        ("telehealth: false", {"telehealth": "false"}),
        ('state: "ca"', {"state": "CA"}),
    ],
)
def test_each_filter_argument_reaches_the_service_as_rests_parameter_does(
    gql, api, arguments: str, params: dict
) -> None:
    # Which doctors match is tests/service/test_doctors.py's; here each argument and spelling
    # must select the same doctors as REST's parameter.
    found = [i["id"] for i in _all(gql, "doctors", "id", arguments, page=50)]
    assert found == [i["id"] for i in _rest_all(api, "/api/v1/doctors", **params)]
    assert 0 < len(found) < 60
