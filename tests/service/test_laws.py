"""service.laws on the shared tiny dataset: every record by state code, lookups by code.

Expected records come from the generated dataset (the law file's 56 jurisdictions).
"""

import pytest
from sqlalchemy import Connection, select

from models import Law
from seed import Dataset
from service.errors import NotFound
from service.laws import get_law, laws_by_codes, list_laws

SHOWN = (
    "state",
    "state_code",
    "recreational",
    "medical",
    "possession_limit_oz",
    "home_grow",
    "home_grow_plants",
    "delivery_legal",
    "updated",
)


def _shown(record: object) -> dict[str, object]:
    return {name: getattr(record, name) for name in SHOWN}


def test_every_law_record_is_listed_once_by_state_code(db: Connection, dataset: Dataset) -> None:
    found = list_laws(db)
    codes = [record.state_code for record in found]
    assert len(codes) == 56
    assert codes == sorted(law["state_code"] for law in dataset.laws)


def test_a_listed_record_carries_exactly_the_shown_columns(
    db: Connection, dataset: Dataset
) -> None:
    by_code = {law["state_code"]: law for law in dataset.laws}
    stamps = dict(db.execute(select(Law.state_code, Law.updated_at)).all())
    for record in list_laws(db):
        assert tuple(record._fields) == (*SHOWN, "updated_at")
        assert _shown(record) == {name: by_code[record.state_code][name] for name in SHOWN}
        assert record.updated_at == stamps[record.state_code]


@pytest.mark.parametrize(
    ("given", "code"), [("CA", "CA"), ("ny", "NY"), ("Dc", "DC"), ("pr", "PR")]
)
def test_one_record_is_found_by_its_code_in_any_case(
    db: Connection, dataset: Dataset, given: str, code: str
) -> None:
    law = next(law for law in dataset.laws if law["state_code"] == code)
    assert _shown(get_law(db, given)) == {name: law[name] for name in SHOWN}


@pytest.mark.parametrize("state", ["XX", "", "CAL", "C", "c\u0391", "ca "])
def test_an_unknown_code_raises_not_found_naming_it(db: Connection, state: str) -> None:
    with pytest.raises(NotFound) as raised:
        get_law(db, state)
    assert raised.value.message == (
        f"no law record for state {state!r}; use a two-letter code such as CA"
    )
    assert raised.value.code == 404


def test_records_by_codes_are_keyed_by_code_and_skip_unknown_codes(
    db: Connection, dataset: Dataset
) -> None:
    found = laws_by_codes(db, ["CA", "WY", "XX", "CA"])
    assert sorted(found) == ["CA", "WY"]
    assert found["WY"].state == "Wyoming"
    assert laws_by_codes(db, []) == {}
