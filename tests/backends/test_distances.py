"""Proximity distances computed by the database are exactly the ones Python computes.

The ZIP search filters, orders and reports distances in SQL (service.geo.miles_sql); Python's
``miles_from`` is the same formula in the same order of operations. Equal floats, not merely
close ones, mean the radius test and the nearest-first order are the documented haversine's.
"""

import math
import sqlite3

import pytest
from sqlalchemy import select

from models import Dispensary
from models.db import ensure_math_functions, make_engine, make_session_factory
from service.dispensary_lists import list_dispensaries
from service.geo import miles_from, miles_sql, origin_terms, zip_point
from service.paging import PageRequest
from tests.filters import dispensary_filters

ORIGINS = ["94110", "10001", "99501", "96701", "33139", "00901"]  # SF, NYC, Alaska, Hawaii, FL, PR


@pytest.mark.parametrize("code", ORIGINS)
def test_the_database_computes_the_same_miles_as_python(backend, code: str) -> None:
    origin = zip_point(code)
    stmt = select(Dispensary.lat, Dispensary.lng, miles_sql(Dispensary.lat, Dispensary.lng))
    with backend.sessions() as session:
        found = session.execute(stmt, origin_terms(origin)).all()
    assert len(found) > 100
    miles = miles_from(origin)
    mismatched = [(lat, lng, sql) for lat, lng, sql in found if sql != miles(lat, lng)]
    assert mismatched == []


def test_python_math_functions_stand_in_for_an_sqlite_built_without_them() -> None:
    conn = sqlite3.connect(":memory:")
    try:
        built_in = conn.execute(
            "SELECT sqlite_compileoption_used('ENABLE_MATH_FUNCTIONS')"
        ).fetchone()[0]
        # Registered exactly when the library lacks them; afterwards every call works.
        assert ensure_math_functions(conn) is not bool(built_in)
        row = conn.execute("SELECT sin(1.0), cos(1.0), asin(0.5), sqrt(2.0)").fetchone()
        assert row == (math.sin(1.0), math.cos(1.0), math.asin(0.5), math.sqrt(2.0))
    finally:
        conn.close()


def test_zip_pages_are_the_same_with_python_math_functions(backend) -> None:
    if backend.name != "sqlite":
        pytest.skip("SQLite only: PostgreSQL always has its own math functions")
    filters = dispensary_filters(zip="94110", radius=500.0)
    window = PageRequest.build(100)
    with backend.sessions() as session:
        native = list_dispensaries(session, filters, window)
    engine = make_engine(backend.url)  # a connection of its own: the backend's pool stays native
    try:
        with make_session_factory(engine)() as session:
            dbapi_connection = session.connection().connection.dbapi_connection
            assert ensure_math_functions(dbapi_connection, replace=True)
            with pytest.raises(sqlite3.OperationalError):  # Python's sqrt is the one called
                dbapi_connection.execute("SELECT sqrt(-1.0)").fetchone()
            substituted = list_dispensaries(session, filters, window)
    finally:
        engine.dispose()
    assert native.total >= 5
    assert substituted == native
