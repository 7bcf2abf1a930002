"""service.changes: the change feed's pages and cursors, on a database of its own per test."""

import base64
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine, select

from models import Base, Change, Strain
from models.db import make_engine
from seed import Dataset
from seed.load import apply_dataset
from service.changes import (
    BAD_CURSOR,
    ChangeQuery,
    feed_state,
    instant_text,
    make_cursor,
    read_cursor,
)
from service.errors import CursorExpired, InvalidParameter
from tests.feeds import (
    RETENTION_DAYS,
    read_to_end,
    seeded_engine,
    served_ids,
    service_reader,
    set_feed_state,
    tiny_dataset,
    with_changes,
)


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return tiny_dataset()


@pytest.fixture
def engine(tmp_path: Path, dataset: Dataset) -> Iterator[Engine]:
    engine = seeded_engine(f"sqlite:///{tmp_path / 'feed.db'}", dataset)
    yield engine
    engine.dispose()


def test_reading_from_the_beginning_lists_every_object_once_as_an_upsert(
    engine: Engine, dataset: Dataset
) -> None:
    pages, _ = read_to_end(service_reader(engine, limit=1000))
    entries = [entry for page in pages for entry in page.items]
    assert len(pages) == 1
    assert len(entries) == len(served_ids(dataset)) == 536
    assert {(e.kind, e.key) for e in entries} == served_ids(dataset)
    assert {e.op for e in entries} == {"upsert"}
    # A fresh log numbers laws first, then strains, dispensaries, deals and doctors.
    assert [e.seq for e in entries] == list(range(1, 537))
    assert [e.kind for e in entries[:57]] == ["law"] * 56 + ["strain"]


def test_following_next_gives_each_change_exactly_once_in_commit_order(
    engine: Engine, dataset: Dataset
) -> None:
    pages, last = read_to_end(service_reader(engine, limit=37))
    entries = [entry for page in pages for entry in page.items]
    assert [len(page.items) for page in pages] == [37] * 14 + [18]
    assert [page.has_more for page in pages] == [True] * 14 + [False]
    assert [e.seq for e in entries] == list(range(1, 537))
    assert pages[0].next == make_cursor(read_cursor(pages[0].next)[0], 37)
    # The end of the feed: nothing more until something changes, and the same cursor again.
    after = service_reader(engine, limit=37)(last)
    assert (after.items, after.has_more, after.next) == ([], False, last)


def test_types_keep_only_changes_of_those_kinds_in_commit_order(engine: Engine) -> None:
    pages, _ = read_to_end(service_reader(engine, types=["doctor", " LAW "], limit=50))
    entries = [entry for page in pages for entry in page.items]
    assert [len(page.items) for page in pages] == [50, 50, 16]
    assert [e.kind for e in entries] == ["law"] * 56 + ["doctor"] * 60
    assert [e.seq for e in entries] == sorted(e.seq for e in entries)


def test_a_filtered_last_page_continues_after_everything_read(engine: Engine) -> None:
    # Only laws: the cursor of the last page is past the whole log, not just the last law.
    page = service_reader(engine, types=["law"], limit=100)(None)
    assert (len(page.items), page.has_more) == (56, False)
    assert read_cursor(page.next)[1] == 536
    assert feed_position_of(engine)[1] == 536


def feed_position_of(engine: Engine) -> tuple[str, int, int]:
    with engine.connect() as conn:
        return feed_state(conn).position


def test_a_page_states_when_the_data_last_changed_and_the_retention(engine: Engine) -> None:
    page = service_reader(engine, limit=1)(None)
    with engine.connect() as conn:
        stamp = conn.scalar(select(Strain.updated_at).limit(1))
    assert page.as_of == instant_text(stamp)
    assert page.items[0].at == page.as_of
    assert page.retention_days == RETENTION_DAYS


@pytest.mark.parametrize(
    ("limit", "served"), [(None, 100), (1, 1), (1000, 1000), (1001, 1000), (10**9, 1000)]
)
def test_the_limit_defaults_to_100_and_larger_ones_are_reduced_to_1000(
    limit: int | None, served: int
) -> None:
    assert ChangeQuery.create(limit=limit).limit == served


@pytest.mark.parametrize("limit", [0, -5])
def test_a_limit_below_one_is_refused_naming_limit(limit: int) -> None:
    with pytest.raises(InvalidParameter) as info:
        ChangeQuery.create(limit=limit)
    assert info.value.param == "limit"
    assert info.value.message == (
        "limit must be an integer from 1 to 1000 (larger values are reduced to 1000)"
    )


@pytest.mark.parametrize(
    ("types", "shown"),
    [
        ([], "none was given"),
        ([""], "'' is not one"),
        (["strain", "strains"], "'strains' is not one"),
        (["menu"], "'menu' is not one"),
    ],
)
def test_unknown_or_no_types_are_refused_naming_types(types: list[str], shown: str) -> None:
    with pytest.raises(InvalidParameter) as info:
        ChangeQuery.create(types=types)
    assert info.value.param == "types"
    assert info.value.message == (
        f"types must be one or more of strain, dispensary, deal, doctor, law, separated by "
        f"commas; {shown}"
    )


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


@pytest.mark.parametrize(
    "since",
    [
        "",
        "not a cursor",
        _b64("1.1234.5")[:-1],  # cut short: "1.1234."
        _b64("2.abcd1234.5"),  # another format version
        _b64("1.ABCD1234.5"),  # an epoch is lower-case hex
        _b64("1.abcd1234.05"),  # a number with a leading zero
        _b64("1.abcd1234.-1"),
        _b64("1.abcd1234.5") + "==",  # padded: not the text the feed gives
        "bWFyw6k",  # "maré": not ASCII inside
        "é",
        "A" * 65,
    ],
)
def test_a_malformed_cursor_is_refused_naming_since(since: str) -> None:
    with pytest.raises(InvalidParameter) as info:
        ChangeQuery.create(since=since)
    assert (info.value.param, info.value.message) == ("since", BAD_CURSOR)


def test_a_cursor_reads_back_as_its_epoch_and_position() -> None:
    cursor = make_cursor("4ef2f20f", 1234)
    assert cursor == _b64("1.4ef2f20f.1234")
    assert read_cursor(cursor) == ("4ef2f20f", 1234)
    assert read_cursor(make_cursor("", 0)) == ("", 0)


def test_a_cursor_past_the_end_of_the_log_is_refused_naming_since(engine: Engine) -> None:
    epoch = feed_position_of(engine)[0]
    with pytest.raises(InvalidParameter) as info:
        service_reader(engine)(make_cursor(epoch, 537))
    assert info.value.param == "since"
    assert info.value.message.startswith("since is past the end of this feed")


def _expired(engine: Engine, since: str) -> CursorExpired:
    with pytest.raises(CursorExpired) as info:
        service_reader(engine)(since)
    return info.value


def test_a_cursor_of_another_log_has_expired(engine: Engine) -> None:
    cursor = service_reader(engine, limit=10)(None).next
    set_feed_state(engine, epoch="0badcafe")
    error = _expired(engine, cursor)
    assert (error.code, error.reason, error.param) == (410, "cursor_expired", "since")
    assert error.message == (
        "this cursor has expired: the feed no longer holds every change after it (the log was "
        "started again, or deletions older than 30 days were dropped); start again without "
        "since to read the feed from the beginning"
    )


def test_a_cursor_below_the_horizon_has_expired_and_one_at_it_has_not(engine: Engine) -> None:
    epoch = feed_position_of(engine)[0]
    set_feed_state(engine, horizon=20)
    assert _expired(engine, make_cursor(epoch, 19)).reason == "cursor_expired"
    assert [e.seq for e in service_reader(engine, limit=2)(make_cursor(epoch, 20)).items] == [
        21,
        22,
    ]


def test_after_a_load_the_old_cursor_gives_exactly_what_changed(
    engine: Engine, dataset: Dataset
) -> None:
    _, cursor = read_to_end(service_reader(engine, limit=1000))
    changed, upserted, deleted = with_changes(dataset)
    result = apply_dataset(engine, changed)
    assert result.changed
    pages, _ = read_to_end(service_reader(engine, limit=1000), cursor)
    entries = [entry for page in pages for entry in page.items]
    assert {(e.kind, e.key) for e in entries} == upserted | deleted
    assert {(e.kind, e.key): e.op for e in entries} == {
        **dict.fromkeys(upserted, "upsert"),
        **dict.fromkeys(deleted, "delete"),
    }
    assert [e.seq for e in entries] == [537, 538, 539]
    assert len({e.at for e in entries}) == 1  # one load, one instant
    assert pages[-1].as_of == entries[0].at
    # Read from the beginning, the feed holds every object once and the deletion.
    fresh, _ = read_to_end(service_reader(engine, limit=1000))
    everything = {(e.kind, e.key): e.op for page in fresh for e in page.items}
    assert everything == {
        **dict.fromkeys(served_ids(changed), "upsert"),
        **{key: "delete" for key in deleted},
    }


def test_a_load_that_drops_a_deletion_expires_the_cursors_before_it(
    engine: Engine, dataset: Dataset
) -> None:
    _, before = read_to_end(service_reader(engine, limit=1000))
    changed, _, deleted = with_changes(dataset)
    apply_dataset(engine, changed)
    _, after_deletion = read_to_end(service_reader(engine, limit=1000), before)
    # A later load with no retention drops the deletion (seq 539): the horizon moves to it.
    again = with_changes(changed)[0]
    apply_dataset(engine, again, retention=timedelta(0))
    with engine.connect() as conn:
        kept = set(conn.execute(select(Change.kind, Change.key).where(Change.op == "delete")))
    assert not kept & deleted
    assert feed_position_of(engine)[2] == 539
    assert _expired(engine, before).reason == "cursor_expired"
    assert service_reader(engine)(after_deletion).items != []


def test_before_the_first_load_the_feed_is_empty_and_its_cursor_expires_after_it(
    tmp_path: Path, dataset: Dataset
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    Base.metadata.create_all(engine)
    page = service_reader(engine)(None)
    assert (page.items, page.has_more, page.as_of) == ([], False, None)
    assert read_cursor(page.next) == ("", 0)
    assert service_reader(engine)(page.next).items == []
    apply_dataset(engine, dataset)
    assert _expired(engine, page.next).reason == "cursor_expired"
    engine.dispose()


def test_an_instant_is_written_in_utc_with_milliseconds_and_z() -> None:
    assert instant_text(datetime(2026, 11, 27, 10, 4, 11, 123456)) == "2026-11-27T10:04:11.123Z"
    denver = datetime(2026, 11, 27, 3, 4, 11, tzinfo=ZoneInfo("America/Denver"))
    assert instant_text(denver) == "2026-11-27T10:04:11.000Z"


def test_more_than_ten_types_are_refused_as_on_every_filter_of_several_values() -> None:
    assert ChangeQuery.create(types=["law"] * 10).kinds == ("law",)
    with pytest.raises(InvalidParameter) as info:
        ChangeQuery.create(types=["law"] * 11)
    assert (info.value.param, info.value.message) == ("types", "types takes at most 10 values")
