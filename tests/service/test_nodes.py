"""Records of any kind by public id: each id finds its own kind only, one statement per kind."""

from datetime import date, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Deal, Dispensary, Doctor, Strain
from service.errors import InvalidParameter
from service.nodes import MAX_NODE_IDS, records_by_public_ids


def test_each_id_finds_the_record_of_its_kind(session: Session) -> None:
    strain = session.scalar(select(Strain.slug).order_by(Strain.id))
    dispensary = session.scalar(select(Dispensary.public_id).order_by(Dispensary.id))
    deal = session.scalar(select(Deal).order_by(Deal.id))
    doctor = session.scalar(select(Doctor.public_id).order_by(Doctor.id))
    found = records_by_public_ids(
        session, [strain, dispensary, deal.public_id, doctor, "CO", "nope"], today=deal.expires
    )
    assert list(found.strains) == [strain]
    assert list(found.dispensaries) == [dispensary]
    assert list(found.deals) == [deal.public_id]
    assert list(found.doctors) == [doctor]
    assert list(found.laws) == ["CO"]
    assert found.laws["CO"].state == "Colorado"


@pytest.mark.parametrize(
    "unknown", ["co", "Co", "BLUE-DREAM", "disp_x", "deal_", "doc_1_", "", "a_b", "ZZ"]
)
def test_an_id_of_no_kind_finds_nothing(session: Session, unknown: str) -> None:
    found = records_by_public_ids(session, [unknown], today=date(2026, 1, 1))
    assert (found.strains, found.dispensaries, found.deals, found.doctors, found.laws) == (
        {},
        {},
        {},
        {},
        {},
    )


def test_a_deal_expired_before_today_is_not_found(session: Session) -> None:
    deal = session.scalar(select(Deal).order_by(Deal.id))
    on_its_last_day = records_by_public_ids(session, [deal.public_id], today=deal.expires)
    after = records_by_public_ids(session, [deal.public_id], today=deal.expires + timedelta(days=1))
    assert list(on_its_last_day.deals) == [deal.public_id]
    assert after.deals == {}


def test_more_than_the_maximum_of_ids_is_refused(session: Session) -> None:
    assert records_by_public_ids(session, ["x"] * MAX_NODE_IDS, today=date(2026, 1, 1)).laws == {}
    with pytest.raises(InvalidParameter) as refused:
        records_by_public_ids(session, ["x"] * (MAX_NODE_IDS + 1), today=date(2026, 1, 1))
    assert refused.value.param == "ids"
    assert refused.value.message == "ids takes at most 100 ids, got 101: ask in several requests"
