"""Spot check against brute force: for 20 random points, the nearest dispensary the API gives is
the nearest by a great-circle computation over every row, and whether it is open at a random
instant is what an independent zoneinfo computation (tests/opening.py) says."""

import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

import web.today
from models import Dispensary
from tests.distances import cosine_law_miles
from tests.opening import is_open_at

POINTS = 20
RADIUS = 500  # the largest the API takes


def test_nearest_dispensary_and_its_open_state_match_brute_force(
    api, session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = session.scalars(select(Dispensary)).all()
    rng = random.Random(22)
    clock = {"at": datetime(2026, 1, 1, tzinfo=UTC)}
    monkeypatch.setattr(web.today, "_read_clock", lambda: clock["at"])
    checked_open = checked_closed = 0
    for _ in range(POINTS):
        # A random point in or near the continental US, Alaska or Hawaii.
        anchor = rng.choice(rows)
        lat = round(max(-90, min(90, anchor.lat + rng.uniform(-3, 3))), 4)
        lng = round(anchor.lng + rng.uniform(-3, 3), 4)
        clock["at"] = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randrange(525_600))
        nearest = min(
            rows,
            key=lambda d: (round(cosine_law_miles(lat, lng, d.lat, d.lng), 6), d.sort_key, d.id),
        )
        miles = cosine_law_miles(lat, lng, nearest.lat, nearest.lng)
        body = api.json(
            "/api/v1/dispensaries", lat=lat, lng=lng, radius=RADIUS, limit=1, open_now="false"
        )
        if miles > RADIUS:
            assert body["data"] == []
            continue
        item = body["data"][0]
        assert item["id"] == nearest.public_id, (lat, lng)
        assert item["distance"] == pytest.approx(miles, abs=0.051)
        expected = is_open_at(nearest.hours, nearest.timezone, clock["at"].replace(second=0))
        assert item["is_open"] is expected, (nearest.public_id, clock["at"])
        checked_open += expected
        checked_closed += not expected
    assert checked_open
    assert checked_closed
