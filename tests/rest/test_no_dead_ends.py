"""Every id the API hands out leads somewhere: doctor and deal details, a deal's dispensary, and
the whole list of laws in one call."""

import json
from pathlib import Path

import pytest

LAWS_JSON = Path(__file__).resolve().parents[2] / "seed" / "data" / "laws.json"
RECORDS = json.loads(LAWS_JSON.read_text(encoding="utf-8"))
DEAL_FIELDS = [
    *("id", "title", "dispensary", "category", "discount", "expires", "dispensary_id"),
    "updated_at",  # the change stamp, after every other field
]
DOCTOR_FIELDS = [
    *("id", "name", "city", "state", "telehealth", "rating", "price"),
    *("lat", "lng", "timezone"),  # where the doctor is, after the SPEC's fields
    "updated_at",
]


def test_each_doctor_in_a_list_has_a_detail_equal_to_its_item(api) -> None:
    items = api.json("/api/v1/doctors", limit=5)["data"]
    for item in items:
        body = api.json(f"/api/v1/doctors/{item['id']}")
        assert list(body) == ["success", "data"]
        assert list(body["data"]) == DOCTOR_FIELDS
        assert body["data"] == item


def test_each_deal_in_a_list_has_a_detail_and_a_dispensary(api) -> None:
    items = api.json("/api/v1/deals", limit=5)["data"]
    for item in items:
        assert list(item) == DEAL_FIELDS
        body = api.json(f"/api/v1/deals/{item['id']}")
        assert list(body) == ["success", "data"]
        assert body["data"] == item
        shop = api.json(f"/api/v1/dispensaries/{item['dispensary_id']}")["data"]
        assert shop["name"] == item["dispensary"]


def test_search_results_of_every_kind_open_as_details(api) -> None:
    found = {}
    for q in ("dr", "off", "green", "kush", "leaf", "cana"):
        for item in api.json("/api/v1/search", q=q, limit=100)["data"]:
            found.setdefault(item["type"], item)
    assert set(found) == {"strain", "dispensary", "doctor", "deal"}
    paths = {
        "strain": f"/api/v1/strains/{found['strain'].get('slug')}",
        "dispensary": f"/api/v1/dispensaries/{found['dispensary'].get('id')}",
        "doctor": f"/api/v1/doctors/{found['doctor'].get('id')}",
        "deal": f"/api/v1/deals/{found['deal'].get('id')}",
    }
    for kind, path in paths.items():
        assert api.json(path)["data"]["name" if kind != "deal" else "title"] == found[kind]["name"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/api/v1/doctors/doc_999999", "no doctor with id 'doc_999999'"),
        ("/api/v1/doctors/disp_1001", "no doctor with id 'disp_1001'"),
        ("/api/v1/doctors/%20", "no doctor with id ' '"),
        ("/api/v1/deals/deal_999999", "no active deal with id 'deal_999999'"),
        ("/api/v1/deals/deal_" + "9" * 40, "no active deal with id 'deal_" + "9" * 40 + "'"),
    ],
)
def test_an_unknown_doctor_or_deal_is_a_404_envelope(api, path: str, message: str) -> None:
    body = api.json(path, status=404)
    assert body["success"] is False
    assert body["error"]["code"] == 404
    assert body["error"]["message"] == message


def test_an_expired_deal_is_not_found(api, expired_deal) -> None:
    with expired_deal() as public_id:
        body = api.json(f"/api/v1/deals/{public_id}", status=404)
        assert body["error"]["message"] == f"no active deal with id '{public_id}'"


@pytest.mark.parametrize("path", ["/api/v1/doctors/{doctor}", "/api/v1/deals/{deal}"])
def test_the_new_details_answer_304_to_their_etag_without_a_charge(api, path: str) -> None:
    doctor = api.json("/api/v1/doctors", limit=1)["data"][0]["id"]
    deal = api.json("/api/v1/deals", limit=1)["data"][0]["id"]
    url = path.format(doctor=doctor, deal=deal)
    first = api.get(url)
    assert first.status_code == 200
    tag = first.headers["ETag"]
    again = api.client.get(url, headers={"X-API-Key": api.key, "If-None-Match": tag})
    assert again.status_code == 304
    assert again.headers["ETag"] == tag


def test_the_law_list_is_every_record_in_one_call(api) -> None:
    body = api.json("/api/v1/laws")
    assert list(body) == ["success", "data", "meta"]
    assert body["meta"] == {"total": 56, "limit": 56, "offset": 0}
    codes = [law["stateCode"] for law in body["data"]]
    assert codes == sorted(record["stateCode"] for record in RECORDS)
    for law in body["data"]:
        assert law == api.json(f"/api/v1/laws/{law['stateCode']}")["data"]


@pytest.mark.parametrize(
    ("params", "wanted"),
    [
        ({"recreational": "true"}, lambda r: r["recreational"]),
        ({"recreational": "FALSE"}, lambda r: not r["recreational"]),
        ({"medical": "1"}, lambda r: r["medical"]),
        ({"medical": "false"}, lambda r: not r["medical"]),
        (
            {"recreational": "false", "medical": "true"},
            lambda r: r["medical"] and not r["recreational"],
        ),
    ],
)
def test_the_law_list_filters_by_recreational_and_medical(api, params: dict, wanted) -> None:
    body = api.json("/api/v1/laws", **params)
    expected = sorted(r["stateCode"] for r in RECORDS if wanted(r))
    assert [law["stateCode"] for law in body["data"]] == expected
    assert body["meta"] == {"total": len(expected), "limit": len(expected), "offset": 0}


def test_a_bad_law_list_filter_is_a_400_naming_it(api) -> None:
    error = api.json("/api/v1/laws", status=400, recreational="maybe")["error"]
    assert error["param"] == "recreational"
