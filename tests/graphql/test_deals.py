"""GraphQL deals: rendering of every field and the nested dispensary."""

from datetime import date

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models import Deal, Dispensary
from tests.graphql.expected import (
    DEAL_FIELDS,
    DISPENSARY_FIELDS,
    _active_deals,
    _all,
    _deal_dict,
    _dispensary_dict,
    _rest_all,
)


def test_deals_are_the_active_deals_by_expiry_then_id(
    gql, session: Session, reference_day: date
) -> None:
    items = _all(gql, "deals", DEAL_FIELDS)
    active = _active_deals(session, reference_day)
    names = {id_: name for id_, name in session.execute(select(Dispensary.id, Dispensary.name))}
    assert items == [_deal_dict(x, names[x.dispensary_id]) for x in active]
    expired = session.scalar(
        select(func.count()).select_from(Deal).where(Deal.expires < reference_day)
    )
    assert expired
    assert all(date.fromisoformat(i["expires"]) >= reference_day for i in items)


def test_deal_dispensary_is_the_dispensary_offering_it(
    gql, session: Session, reference_day: date
) -> None:
    items = _all(gql, "deals", f"id dispensaryName dispensary {{ {DISPENSARY_FIELDS} }}")
    rows = {d.id: d for d in session.scalars(select(Dispensary))}
    deals = {x.public_id: rows[x.dispensary_id] for x in _active_deals(session, reference_day)}
    assert {i["id"] for i in items} == set(deals)
    for item in items:
        d = deals[item["id"]]
        assert item["dispensary"] == _dispensary_dict(d)
        assert item["dispensaryName"] == d.name


@pytest.mark.parametrize(
    ("arguments", "params"),
    [
        ('category: "EDIBLES"', {"category": "edibles"}),
        ('state: "ca"', {"state": "CA"}),
        ('state: "FL", city: "miami"', {"state": "FL", "city": "Miami"}),
    ],
)
def test_each_filter_argument_reaches_the_service_as_rests_parameter_does(
    gql, api, arguments: str, params: dict
) -> None:
    # Which deals match is tests/service/test_deals.py's; here each argument and spelling must
    # select the same deals as REST's parameter.
    found = [i["id"] for i in _all(gql, "deals", "id", arguments)]
    assert found == [i["id"] for i in _rest_all(api, "/api/v1/deals", **params)]
    assert 0 < len(found) < gql.data("{ deals { total } }")["deals"]["total"]
