"""The daily schedule rules: parsing, local days, DST, catch-up and question rotation."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.common.errors import UserError
from bot.common.schedule import (
    DailySchedule,
    choose_question,
    local_day,
    next_post_at,
    parse_post_time,
    parse_reveal_after,
    parse_timezone,
    post_datetime,
    reveal_at,
    should_catch_up,
)

JAKARTA = ZoneInfo("Asia/Jakarta")
LA = ZoneInfo("America/Los_Angeles")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("08:00", time(8)), ("7:05", time(7, 5)), ("23:59", time(23, 59)), (" 00:00 ", time(0))],
)
def test_post_time_accepts_24h_clock(text: str, expected: time) -> None:
    assert parse_post_time(text) == expected


@pytest.mark.parametrize("text", ["25:99", "24:00", "7pm", "", "08:60", "8", "08:00:00", "0800"])
def test_post_time_refuses_nonsense(text: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_post_time(text)
    assert caught.value.key == "daily.bad_time"
    assert caught.value.params == {"value": text}


def test_timezone_accepts_iana_names() -> None:
    assert parse_timezone("Asia/Jakarta") == JAKARTA
    assert parse_timezone("UTC") == ZoneInfo("UTC")


@pytest.mark.parametrize(
    "name",
    [
        "Mars/Olympus",
        "",
        "   ",
        "/etc/passwd",
        "../../etc/passwd",
        "Asia/../etc",
        "Asia\\Jakarta",
        "Asia/",
    ],
)
def test_timezone_refuses_unknown_and_path_like(name: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_timezone(name)
    assert caught.value.key == "daily.bad_timezone"
    assert caught.value.params == {"value": name}


@pytest.mark.parametrize("hours", [0, 24, -1, 1.5, True])
def test_reveal_after_refuses_out_of_range(hours: object) -> None:
    with pytest.raises(UserError) as caught:
        parse_reveal_after(hours)  # type: ignore[arg-type]
    assert caught.value.key == "daily.bad_reveal_after"
    assert caught.value.params == {"value": hours, "min": 1, "max": 23}


def test_reveal_after_accepts_range_and_none() -> None:
    assert [parse_reveal_after(h) for h in (None, 1, 23)] == [None, 1, 23]


def test_local_day_in_jakarta_crosses_midnight_at_17_utc() -> None:
    assert local_day(utc(2026, 5, 1, 16, 59), JAKARTA) == date(2026, 5, 1)
    assert local_day(utc(2026, 5, 1, 17, 0), JAKARTA) == date(2026, 5, 2)


def test_local_day_in_los_angeles_around_midnight() -> None:
    # Summer: UTC-7, local midnight is 07:00 UTC.
    assert local_day(utc(2026, 7, 2, 6, 59), LA) == date(2026, 7, 1)
    assert local_day(utc(2026, 7, 2, 7, 0), LA) == date(2026, 7, 2)
    # Winter: UTC-8.
    assert local_day(utc(2026, 12, 2, 7, 59), LA) == date(2026, 12, 1)


def test_post_datetime_jakarta() -> None:
    assert post_datetime(date(2026, 5, 1), time(0, 30), JAKARTA) == utc(2026, 4, 30, 17, 30)


def test_dst_gap_moves_forward_and_fold_takes_first() -> None:
    # 2026-03-08 02:30 does not exist in LA: posted at 03:30 PDT (10:30 UTC).
    gap = post_datetime(date(2026, 3, 8), time(2, 30), LA)
    assert gap == utc(2026, 3, 8, 10, 30)
    assert gap.astimezone(LA).time() == time(3, 30)
    # 2026-11-01 01:30 happens twice: the first (PDT, UTC-7) is used.
    assert post_datetime(date(2026, 11, 1), time(1, 30), LA) == utc(2026, 11, 1, 8, 30)
    # Same local post time, one hour less/more of UTC across each change.
    assert post_datetime(date(2026, 3, 9), time(8), LA) - post_datetime(
        date(2026, 3, 8), time(8), LA
    ) == timedelta(hours=24)
    assert post_datetime(date(2026, 3, 8), time(8), LA) - post_datetime(
        date(2026, 3, 7), time(8), LA
    ) == timedelta(hours=23)
    assert post_datetime(date(2026, 11, 1), time(8), LA) - post_datetime(
        date(2026, 10, 31), time(8), LA
    ) == timedelta(hours=25)


def test_next_post_at() -> None:
    schedule = DailySchedule(time(8), JAKARTA)
    assert next_post_at(utc(2026, 5, 1, 0, 59), schedule) == utc(2026, 5, 1, 1, 0)
    # Exactly at post time the next one is tomorrow's.
    assert next_post_at(utc(2026, 5, 1, 1, 0), schedule) == utc(2026, 5, 2, 1, 0)
    # Late evening local: tomorrow's local day already started in UTC terms.
    assert next_post_at(utc(2026, 5, 1, 17, 30), schedule) == utc(2026, 5, 2, 1, 0)


def test_next_post_at_across_spring_forward() -> None:
    schedule = DailySchedule(time(2, 30), LA)
    # Saturday evening: the next post is Sunday's nonexistent 02:30, i.e. 03:30 PDT.
    assert next_post_at(utc(2026, 3, 8, 5, 0), schedule) == utc(2026, 3, 8, 10, 30)


def test_reveal_default_is_just_before_next_post() -> None:
    schedule = DailySchedule(time(8), JAKARTA)
    assert reveal_at(date(2026, 5, 1), schedule) == utc(2026, 5, 2, 0, 59)
    # Across the fall-back change the day has 25 hours.
    la = DailySchedule(time(8), LA)
    assert reveal_at(date(2026, 10, 31), la) == utc(2026, 11, 1, 15, 59)


def test_reveal_after_hours_is_capped_by_next_post_on_short_days() -> None:
    assert reveal_at(date(2026, 5, 1), DailySchedule(time(8), JAKARTA, 3)) == utc(2026, 5, 1, 4, 0)
    # 2026-03-08 in LA has 23 hours: 08:00 + 23 h would be the next post itself.
    short = DailySchedule(time(8), LA, 23)
    assert reveal_at(date(2026, 3, 7), short) == post_datetime(
        date(2026, 3, 8), time(8), LA
    ) - timedelta(minutes=1)


def test_catch_up_posts_a_missed_post_once_on_the_same_day() -> None:
    schedule = DailySchedule(time(8), JAKARTA)
    today = date(2026, 5, 1)
    before = utc(2026, 5, 1, 0, 30)  # 07:30 local
    after = utc(2026, 5, 1, 10, 0)  # 17:00 local
    assert not should_catch_up(before, schedule, date(2026, 4, 30))
    assert should_catch_up(after, schedule, date(2026, 4, 30))
    assert should_catch_up(after, schedule, None)
    assert not should_catch_up(after, schedule, today)  # already posted today


def test_catch_up_never_posts_for_a_day_that_is_over() -> None:
    schedule = DailySchedule(time(23, 30), JAKARTA)
    # Down from 23:00 local on May 1 to 00:10 local on May 2: May 1's post is not made late,
    # and May 2's post time has not come yet.
    assert not should_catch_up(utc(2026, 5, 1, 17, 10), schedule, date(2026, 4, 30))


def test_catch_up_not_after_reveal_time() -> None:
    schedule = DailySchedule(time(8), JAKARTA, reveal_after_hours=2)
    assert should_catch_up(utc(2026, 5, 1, 2, 0), schedule, None)  # 09:00, reveal at 10:00
    assert not should_catch_up(utc(2026, 5, 1, 3, 0), schedule, None)  # 10:00: already revealed


def test_choose_question_is_deterministic_and_covers_all_before_repeating() -> None:
    pool = [f"q{i}" for i in range(5)]
    history: list[str] = []
    day = date(2026, 1, 1)
    for offset in range(15):
        pick = choose_question(42, day + timedelta(days=offset), pool, history)
        assert pick == choose_question(
            42, day + timedelta(days=offset), list(reversed(pool)), list(history)
        )
        history.append(pick)
    for cycle in range(3):
        assert sorted(history[cycle * 5 : cycle * 5 + 5]) == pool
    assert all(a != b for a, b in itertools.pairwise(history))


def test_choose_question_differs_between_guilds_and_ignores_foreign_ids() -> None:
    pool = [f"q{i}" for i in range(20)]
    picks = {choose_question(guild, date(2026, 1, 1), pool, []) for guild in range(10)}
    assert len(picks) > 1
    assert choose_question(1, date(2026, 1, 2), ["a", "b"], ["old-topic", "a"]) == "b"


def test_choose_question_without_questions() -> None:
    with pytest.raises(UserError) as caught:
        choose_question(1, date(2026, 1, 1), [], [])
    assert caught.value.key == "daily.no_questions"


@pytest.mark.parametrize(
    ("zone", "at", "now"),
    [
        ("America/Los_Angeles", "02:30", datetime(2026, 3, 8, 8, 0, tzinfo=UTC)),  # the gap
        ("America/Los_Angeles", "01:30", datetime(2026, 11, 1, 7, 0, tzinfo=UTC)),  # the fold
        ("Europe/Berlin", "02:30", datetime(2026, 3, 28, 12, 0, tzinfo=UTC)),
        ("Asia/Jakarta", "07:00", datetime(2026, 3, 8, 0, 0, tzinfo=UTC)),  # exactly at it
    ],
)
def test_the_status_shows_the_instant_the_post_job_fires(zone: str, at: str, now: datetime) -> None:
    """`/daily status` (next_post_at) and the scheduler's job (its trigger) name one
    instant, on daylight-saving days too; at the post instant itself, the next one."""
    from bot.common.schedule import post_trigger

    schedule = DailySchedule(parse_post_time(at), parse_timezone(zone))
    shown = next_post_at(now, schedule)
    fired = post_trigger(schedule).get_next_fire_time(None, now)
    assert fired is not None
    fires = fired.astimezone(UTC)  # a local time in a gap or fold compares unequal as is
    assert shown > now
    assert shown == fires or (fires == now and shown == now + timedelta(days=1))
