"""The root fields that fetch one doctor or one deal by id: like ``dispensary(id)``, an unknown
id (or an expired deal) is null without an error."""

from datetime import date

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Law
from tests.graphql.expected import (
    DEAL_FIELDS,
    DISPENSARY_FIELDS,
    DOCTOR_FIELDS,
    LAW_FIELDS,
    _active_deals,
    _deal_dict,
    _dispensary_dict,
    _doctor_dict,
    _law_dict,
)


def test_doctor_by_id_has_every_field_and_its_states_law(gql, session: Session) -> None:
    doctor = session.scalar(select(Doctor).order_by(Doctor.id.desc()))
    data = gql.data(
        f'{{ doctor(id: "{doctor.public_id}") {{ {DOCTOR_FIELDS} law {{ {LAW_FIELDS} }} }} }}'
    )
    law = session.get_one(Law, doctor.state)
    assert data == {"doctor": {**_doctor_dict(doctor), "law": _law_dict(law)}}


@pytest.mark.parametrize("unknown", ["doc_999999", "doc_0", "disp_1006", "nope", "", "DOC_1001"])
def test_unknown_doctor_id_is_null_without_errors(gql, unknown: str) -> None:
    body = gql(f'{{ doctor(id: "{unknown}") {{ id }} law(state: "CA") {{ stateCode }} }}')
    assert body["data"] == {"doctor": None, "law": {"stateCode": "CA"}}
    assert "errors" not in body


def test_deal_by_id_has_every_field_and_its_dispensary(
    gql, session: Session, reference_day: date
) -> None:
    deal = _active_deals(session, reference_day)[-1]
    dispensary = session.get_one(Dispensary, deal.dispensary_id)
    selection = f"{DEAL_FIELDS} dispensary {{ {DISPENSARY_FIELDS} }}"
    data = gql.data(f'{{ deal(id: "{deal.public_id}") {{ {selection} }} }}')
    assert data == {
        "deal": {**_deal_dict(deal, dispensary.name), "dispensary": _dispensary_dict(dispensary)}
    }


@pytest.mark.parametrize("unknown", ["deal_999999", "deal_0", "doc_1001", "nope", "", "DEAL_1001"])
def test_unknown_deal_id_is_null_without_errors(gql, unknown: str) -> None:
    body = gql(f'{{ deal(id: "{unknown}") {{ id }} law(state: "CA") {{ stateCode }} }}')
    assert body["data"] == {"deal": None, "law": {"stateCode": "CA"}}
    assert "errors" not in body


def test_an_expired_deal_is_null_like_an_unknown_one(gql, committed: Session, expired_deal) -> None:
    # Each query is a new document, so no cached result answers the second one.
    public_id = committed.scalar(select(Deal.public_id).order_by(Deal.id).limit(1))
    assert gql.data(f'{{ deal(id: "{public_id}") {{ id }} }}') == {"deal": {"id": public_id}}
    with expired_deal() as expired:
        assert expired == public_id
        body = gql(f'{{ deal(id: "{public_id}") {{ id title }} }}')
        assert body == {"data": {"deal": None}, "extensions": body["extensions"]}
