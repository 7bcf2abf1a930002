"""rest.accel.views: with speed tricks on, a REST view runs without the wrappers that only
document it (and answers the same); off, Flask runs every wrapper flask-smorest made."""

import sys
from collections.abc import Callable
from types import CodeType

import pytest
from flask import Flask

from rest.accel.views import _pass_through_codes

PATHS = ["/api/v1/laws/CA", "/api/v1/strains?type=hybrid&limit=3", "/api/v1/strains/zzz"]


def _codes_run(app: Flask, path: str, key: str) -> tuple[int, bytes, list[CodeType]]:
    """Status, body and every Python code object called while ``app`` answers ``path``."""
    client = app.test_client()
    called: list[CodeType] = []

    def watch(frame, event: str, _arg) -> None:
        if event == "call":
            called.append(frame.f_code)

    sys.setprofile(watch)
    try:
        response = client.get(path, headers={"X-API-Key": key})
    finally:
        sys.setprofile(None)
    return response.status_code, response.get_data(), called


@pytest.mark.parametrize("path", PATHS)
def test_documentation_wrappers_run_only_without_speed_tricks(
    make_app: Callable[..., Flask], api_keys: dict, path: str
) -> None:
    codes = _pass_through_codes()
    answers = {}
    for tricks in (True, False):
        app = make_app(SPEED_TRICKS=tricks)
        _codes_run(app, path, api_keys["pro"])  # first use: caches, statements
        status, body, called = _codes_run(app, path, api_keys["pro"])
        wrappers = [code for code in called if code in codes]
        answers[tricks] = (status, body)
        if tricks:
            assert wrappers == []
        else:
            assert len(wrappers) >= 8  # errors(...), not_modified and operation_id
    assert answers[True] == answers[False]
