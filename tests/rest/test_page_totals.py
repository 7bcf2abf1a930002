"""A REST list page and its total come from one statement (a window past the end counts apart)."""

import pytest
from flask import Flask

CASES = [
    ("/api/v1/strains", {}),
    ("/api/v1/strains", {"type": "indica"}),
    ("/api/v1/strains", {"effect": "relaxed", "thc_min": "15"}),
    ("/api/v1/dispensaries", {"state": "CA"}),
]


@pytest.mark.parametrize(("path", "params"), CASES)
def test_a_full_page_and_its_total_take_one_statement(
    make_app, api_keys: dict, count_statements, path: str, params: dict
) -> None:
    app: Flask = make_app(PAGE_CACHE_MB=0)  # no stored pages: every request runs its SQL
    client = app.test_client()
    query = {**params, "limit": 2}
    headers = {"X-API-Key": api_keys["pro"]}
    client.get(path, query_string=query, headers=headers)  # the key and version are now known
    with count_statements(app) as seen:
        body = client.get(path, query_string=query, headers=headers).get_json()
    assert len(body["data"]) == 2
    # The page with its count (and, for strains, each strain's effects and flavors).
    assert len(seen) == 1, seen
