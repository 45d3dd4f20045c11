"""The schedule of a task (issue 34, scheduled tasks): the user's words read as a rule, said back, and
the next time it is due — weekends skipped, missed hours counted from the start, a one-off that passed."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from jawad_desktop.core.errors import JawadError
from jawad_desktop.core.tasks.schedule import Schedule, parse_schedule

NOW = datetime(2026, 11, 27, 23, 10).astimezone()  # a Friday night


def local(*args: int) -> datetime:
    return datetime(*args).astimezone()  # type: ignore[arg-type]


@pytest.mark.parametrize(("words", "said", "first"), [
    ("every weekday at 8", "Weekdays (Monday to Friday) at 08:00", local(2026, 11, 30, 8)),
    ("Weekdays 8:30 am", "Weekdays (Monday to Friday) at 08:30", local(2026, 11, 30, 8, 30)),
    ("every day at 7:30pm", "Every day at 19:30", local(2026, 11, 28, 19, 30)),
    ("daily at 07:00", "Every day at 07:00", local(2026, 11, 28, 7)),
    ("every monday at 9", "Every Monday at 09:00", local(2026, 11, 30, 9)),
    ("every Fridays at 17h30", "Every Friday at 17:30", local(2026, 12, 4, 17, 30)),
    ("every 3 hours", "Every 3 hours", local(2026, 11, 28, 2, 10)),
    ("hourly", "Every hour", local(2026, 11, 28, 0, 10)),
    ("tomorrow at 9", "Once, on Saturday 28 November 2026 at 09:00", local(2026, 11, 28, 9)),
    ("in 20 minutes", "Once, on Friday 27 November 2026 at 23:30", local(2026, 11, 27, 23, 30)),
    ("2026-12-01 09:00", "Once, on Tuesday 01 December 2026 at 09:00", local(2026, 12, 1, 9)),
])
def test_words_become_a_rule_said_back_with_its_first_time(words: str, said: str, first: datetime) -> None:
    schedule = parse_schedule(words, NOW)
    assert schedule.describe() == said
    assert schedule.next_after(NOW) == first
    assert Schedule.from_json(schedule.to_json()) == schedule


def test_the_next_time_skips_what_the_rule_leaves_out() -> None:
    weekdays = parse_schedule("every weekday at 8", NOW)
    friday_8 = local(2026, 12, 4, 8)
    assert weekdays.next_after(friday_8) == local(2026, 12, 7, 8)  # not Saturday or Sunday
    assert weekdays.next_after(friday_8 - timedelta(minutes=1)) == friday_8
    every_3 = parse_schedule("every 3 hours", NOW)
    later = NOW + timedelta(hours=10, minutes=5)  # asleep through three of them
    assert every_3.next_after(later) == NOW + timedelta(hours=12)
    once = parse_schedule("tomorrow at 9", NOW)
    assert once.next_after(local(2026, 11, 28, 9)) is None  # a one-off runs once


@pytest.mark.parametrize(("words", "why"), [
    ("sometimes", "is not a schedule Jawad knows"),
    ("every day", "say at what time"),
    ("every day at", "say at what time"),
    ("every day at 25", "25:00 is not a time of day"),
    ("every day at 13pm", "13 pm is not a time"),
    ("today at 8", "08:00 today has passed"),
    ("2026-02-30 09:00", "is not a date"),
    ("2020-01-01 09:00", "has passed"),
    ("every 0 hours", "takes N from 1 to 168"),
    ("", "it is empty"),
])
def test_unclear_words_say_what_is_unclear_with_examples(words: str, why: str) -> None:
    with pytest.raises(JawadError) as caught:
        parse_schedule(words, NOW)
    assert why in caught.value.message
    assert '"every weekday at 8"' in " ".join(caught.value.suggestions)
