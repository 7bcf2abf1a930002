"""GraphQL laws and law: every record rendered, lookups by code, null for an unknown one."""

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import Law
from tests.graphql.expected import LAW_FIELDS, _law_dict


def test_laws_are_all_56_records_sorted_by_code(gql, session: Session) -> None:
    data = gql.data(f"{{ laws {{ {LAW_FIELDS} }} }}")
    rows = session.scalars(select(Law).order_by(Law.state_code)).all()
    assert len(data["laws"]) == 56
    assert data["laws"] == [_law_dict(law) for law in rows]
    codes = [law["stateCode"] for law in data["laws"]]
    assert codes == sorted(codes)


@pytest.mark.parametrize("given", ["ny", "NY", "Ny"])
def test_law_by_state_code_ignores_case(gql, session: Session, given: str) -> None:
    data = gql.data(f'{{ law(state: "{given}") {{ {LAW_FIELDS} }} }}')
    assert data == {"law": _law_dict(session.get_one(Law, "NY"))}


@pytest.mark.parametrize("unknown", ["ZZ", "", "New York", "N", "NYC"])
def test_unknown_law_state_is_null_without_errors(gql, unknown: str) -> None:
    body = gql(f'{{ law(state: "{unknown}") {{ stateCode }} }}')
    assert body["data"] == {"law": None}
    assert "errors" not in body
