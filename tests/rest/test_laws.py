"""GET /api/v1/laws/{state} (SPEC 2.6, 4.7): one record per jurisdiction, from laws.json."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

LAWS_JSON = Path(__file__).resolve().parents[2] / "seed" / "data" / "laws.json"
FIELDS = [
    "state",
    "stateCode",
    "recreational",
    "medical",
    "possession_limit_oz",
    "home_grow",
    "home_grow_plants",
    "delivery_legal",
    "updated",
]
# What the API serves: the file's fields, then the change stamp.
SERVED = [*FIELDS, "updated_at"]
STAMP = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$")
RECORDS: dict[str, dict[str, Any]] = {
    record["stateCode"]: record for record in json.loads(LAWS_JSON.read_text(encoding="utf-8"))
}


def test_the_law_file_covers_56_jurisdictions_once_each() -> None:
    records = json.loads(LAWS_JSON.read_text(encoding="utf-8"))
    assert len(records) == len(RECORDS) == 56
    assert {"CA", "NY", "DC", "PR", "GU", "VI", "AS", "MP"} <= RECORDS.keys()


@pytest.mark.parametrize("code", sorted(RECORDS))
def test_each_law_record_equals_the_json_file_field_for_field(api, code: str) -> None:
    body = api.json(f"/api/v1/laws/{code}")
    assert list(body) == ["success", "data"]
    assert body["success"] is True
    data = body["data"]
    assert list(data) == SERVED
    expected = {name: RECORDS[code][name] for name in FIELDS}
    assert {name: data[name] for name in FIELDS} == expected
    assert STAMP.fullmatch(data["updated_at"])
    # Types as SPEC 2.6: equal values of the wrong type (1 vs True, "6" vs 6) do not pass.
    for name in ("recreational", "medical", "home_grow", "delivery_legal"):
        assert isinstance(data[name], bool), name
    assert isinstance(data["home_grow_plants"], int)
    assert not isinstance(data["home_grow_plants"], bool)
    assert isinstance(data["possession_limit_oz"], int | float)
    assert not isinstance(data["possession_limit_oz"], bool)


@pytest.mark.parametrize(
    ("given", "code"), [("ca", "CA"), ("Ny", "NY"), ("dC", "DC"), ("pr", "PR")]
)
def test_state_code_is_matched_in_any_case(api, given: str, code: str) -> None:
    data = api.json(f"/api/v1/laws/{given}")["data"]
    assert data["stateCode"] == code
    assert {name: data[name] for name in FIELDS} == {name: RECORDS[code][name] for name in FIELDS}


def test_provenance_fields_are_not_served(api) -> None:
    data = api.json("/api/v1/laws/CO")["data"]
    assert not {"notes", "confidence", "sources"} & set(data)


@pytest.mark.parametrize(
    "state", ["XX", "CAL", "1", "C", "ZZ", "California", "\u0421A", "ca%20", "%20CA", "00"]
)
def test_unknown_state_is_a_404_envelope(api, state: str) -> None:
    body = api.json(f"/api/v1/laws/{state}", status=404)
    assert body["success"] is False
    assert body["error"]["code"] == 404
    assert "data" not in body


def test_south_dakota_patients_may_grow_four_plants(api) -> None:
    # SDCL 34-20G-1 as amended in 2022: two flowering and two non-flowering plants.
    law = api.json("/api/v1/laws/SD")["data"]
    assert (law["home_grow"], law["home_grow_plants"]) == (True, 4)
    assert law["updated"] == "2026-11-25"
    assert "2 flowering and 2 not" in RECORDS["SD"]["notes"]
    assert "https://sdlegislature.gov/Statutes/34-20G-1" in RECORDS["SD"]["sources"]


def test_kentucky_possession_is_the_limit_on_the_person_like_every_other_record(api) -> None:
    # 37.5 g (a 10-day supply) on the person; the 30-day supply of 112 g is what may stay home.
    law = api.json("/api/v1/laws/KY")["data"]
    assert law["possession_limit_oz"] == 1.32
    assert round(37.5 / 28.349523125, 2) == law["possession_limit_oz"]
    assert law["updated"] == "2026-11-25"
    assert "37.5 g raw plant (1.32 oz)" in RECORDS["KY"]["notes"]
