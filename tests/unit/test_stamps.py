"""service.stamps (how a stamp is written) and service.when.since (the updated_since filter)."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from service.errors import InvalidParameter
from service.stamps import as_utc, stamp_text
from service.when import instant, since

NOW = datetime(2026, 11, 27, 10, 4, 11, 500000, tzinfo=UTC)


def _now() -> datetime:
    return NOW


@pytest.mark.parametrize(
    ("given", "written"),
    [
        (datetime(2026, 11, 27, 10, 4, 11, 123456), "2026-11-27T10:04:11.123Z"),  # naive: UTC
        (datetime(2026, 11, 27, 10, 4, 11), "2026-11-27T10:04:11.000Z"),
        (
            datetime(2026, 11, 27, 12, 4, 11, 999000, tzinfo=timezone(timedelta(hours=2))),
            "2026-11-27T10:04:11.999Z",
        ),
    ],
)
def test_a_stamp_is_written_in_utc_with_three_fraction_digits_and_z(
    given: datetime, written: str
) -> None:
    assert stamp_text(given) == written


def test_as_utc_reads_a_naive_stamp_as_utc() -> None:
    assert as_utc(datetime(2026, 1, 1, 5)) == datetime(2026, 1, 1, 5, tzinfo=UTC)
    assert as_utc(datetime(2026, 1, 1, 5)).tzinfo is UTC


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2026-11-27T10:04:11.123Z", datetime(2026, 11, 27, 10, 4, 11, 123000, tzinfo=UTC)),
        ("2026-11-27t10:04:11z", datetime(2026, 11, 27, 10, 4, 11, tzinfo=UTC)),
        ("2026-11-27T03:04:11-07:00", datetime(2026, 11, 27, 10, 4, 11, tzinfo=UTC)),
        ("2026-11-27T10:04:11.5+00:00", datetime(2026, 11, 27, 10, 4, 11, 500000, tzinfo=UTC)),
        # Finer than a microsecond: rounded up, so that >= keeps its meaning.
        ("2026-11-27T10:04:11.000000001Z", datetime(2026, 11, 27, 10, 4, 11, 1, tzinfo=UTC)),
        ("2026-11-27T10:04:11.123000000Z", datetime(2026, 11, 27, 10, 4, 11, 123000, tzinfo=UTC)),
        ("2026-11-27T10:04:11.5Z", NOW),  # exactly now is not the future
    ],
)
def test_since_reads_rfc_3339_into_utc(text: str, instant: datetime) -> None:
    read = since(text, _now)
    assert read == instant
    assert read.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-27",
        "2026-11-27T10:04Z",
        "2026-11-27T10:04:11",
        "2026-11-27 10:04:11Z",
        "2026-11-27T10:04:11.Z",
        "2026-11-27T10:04:11.1234567890Z",
        "2026-02-30T10:04:11Z",
        "2026-11-27T24:00:00Z",
        "2026-11-27T10:04:11+0700",
        "\uff12\uff10\uff12\uff16-11-27T10:04:11Z",  # full-width digits
        " 2026-11-27T10:04:11Z",
        "",
    ],
)
def test_since_refuses_what_is_not_rfc_3339_naming_the_parameter(text: str) -> None:
    with pytest.raises(InvalidParameter) as raised:
        since(text, _now, "updatedSince")
    assert raised.value.param == "updatedSince"
    assert "RFC 3339" in raised.value.message
    assert "2026-11-27T10:04:11.123Z" in raised.value.message


def test_since_refuses_an_instant_after_now_and_a_naive_datetime() -> None:
    with pytest.raises(InvalidParameter, match="future") as raised:
        since("2026-11-27T10:04:11.501Z", _now)
    assert raised.value.param == "updated_since"
    with pytest.raises(InvalidParameter, match="future"):
        since(NOW + timedelta(microseconds=1), _now)
    with pytest.raises(InvalidParameter, match="RFC 3339"):
        since(datetime(2026, 1, 1), _now)


def test_since_at_the_ends_of_the_calendar_is_no_server_error() -> None:
    # Year 1 at +01:00 is before year 1 in UTC: older than every stamp, so everything matches.
    assert since("0001-01-01T00:00:00+01:00", _now) == datetime.min.replace(tzinfo=UTC)
    with pytest.raises(InvalidParameter, match="future"):
        since("9999-12-31T23:59:59-01:00", _now)


def test_open_at_past_the_calendar_in_utc_is_a_400() -> None:
    with pytest.raises(InvalidParameter) as raised:
        instant("9999-12-31T23:59:59-01:00")
    assert raised.value.param == "open_at"


def test_since_reads_the_clock_only_when_given_an_instant() -> None:
    calls: list[int] = []

    def clock() -> datetime:
        calls.append(1)
        return NOW

    with pytest.raises(InvalidParameter):
        since("soon", clock)
    assert calls == []
