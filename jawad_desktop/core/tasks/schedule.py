"""When a scheduled task runs: a rule read from the user's words and shown back to them (no Qt).

``parse_schedule("every weekday at 8", now)`` gives a ``Schedule``; ``describe()`` says it back
("Weekdays (Monday to Friday) at 08:00"), ``next_after(moment)`` gives the next time it is due.
Kinds: once (a date and time, "tomorrow at 9", "today at 17:30", "in 2 hours"), daily ("every day
at 7pm"), weekdays ("every weekday at 8", "weekdays at 8:30"), weekly ("every monday at 9"),
every N hours ("every 3 hours", "hourly"). Times are the computer's local time; moments are
timezone-aware datetimes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any, Literal

from jawad_desktop.core.errors import JawadError

__all__ = ["Schedule", "ScheduleKind", "parse_schedule"]

ScheduleKind = Literal["once", "daily", "weekdays", "weekly", "hours"]

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_WORDS = {name: n for n, name in enumerate(DAYS)} | {name[:3]: n for n, name in enumerate(DAYS)}
_TIME = r"(?P<hour>\d{1,2})(?:[:.h](?P<minute>\d{2}))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)?"
_AT = rf"(?:(?:\s+at)?\s+{_TIME})?"
_EXAMPLES = ['"every weekday at 8"', '"every day at 7:30pm"', '"every monday at 9"', '"every 3 hours"',
             '"tomorrow at 9"', '"2026-12-01 09:00"']


@dataclass(frozen=True, slots=True)
class Schedule:
    """A rule: ``kind``, the time of day (``at``) for daily, weekdays and weekly, the day of the
    week (``weekday``, 0 is Monday) for weekly, ``hours`` for every N hours (counted from
    ``start``), the moment (``start``) for once."""

    kind: ScheduleKind
    at: time | None = None
    weekday: int = 0
    hours: int = 0
    start: datetime | None = None

    def describe(self) -> str:
        """The rule in words, as the user sees it back."""
        at = self.at.strftime("%H:%M") if self.at is not None else ""
        if self.kind == "once":
            assert self.start is not None
            return f"Once, on {self.start.strftime('%A %d %B %Y at %H:%M')}"
        if self.kind == "daily":
            return f"Every day at {at}"
        if self.kind == "weekdays":
            return f"Weekdays (Monday to Friday) at {at}"
        if self.kind == "weekly":
            return f"Every {DAYS[self.weekday].capitalize()} at {at}"
        return "Every hour" if self.hours == 1 else f"Every {self.hours} hours"

    def next_after(self, moment: datetime) -> datetime | None:
        """The first time strictly after ``moment`` the task is due; None when it never is again."""
        moment = moment.astimezone()
        if self.kind == "once":
            assert self.start is not None
            return self.start if self.start > moment else None
        if self.kind == "hours":
            assert self.start is not None
            step = timedelta(hours=self.hours)
            if moment < self.start:
                return self.start
            passed = (moment - self.start) // step + 1
            return self.start + passed * step
        assert self.at is not None
        day = moment.date()
        for _ in range(8):
            candidate = datetime.combine(day, self.at).astimezone()
            if candidate > moment and self._runs_on(day):
                return candidate
            day += timedelta(days=1)
        raise AssertionError("a weekly rule is due within eight days")  # pragma: no cover

    def _runs_on(self, day: date) -> bool:
        if self.kind == "weekdays":
            return day.weekday() < 5
        if self.kind == "weekly":
            return day.weekday() == self.weekday
        return True

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "at": self.at.strftime("%H:%M") if self.at else None, "weekday": self.weekday,
                "hours": self.hours, "start": self.start.isoformat() if self.start else None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Schedule:
        at = data.get("at")
        start = data.get("start")
        return cls(kind=data["kind"], at=time.fromisoformat(at) if at else None, weekday=int(data.get("weekday", 0)),
                   hours=int(data.get("hours", 0)), start=datetime.fromisoformat(start) if start else None)


def _clock(match: re.Match[str], default: time | None = None) -> time:
    if match.group("hour") is None:
        if default is None:
            raise _unclear("say at what time (\"at 8\", \"at 18:30\")")
        return default
    hour, minute = int(match.group("hour")), int(match.group("minute") or 0)
    ampm = (match.group("ampm") or "").replace(".", "")
    if ampm:
        if not 1 <= hour <= 12:
            raise _unclear(f"{hour} {ampm} is not a time")
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or minute > 59:
        raise _unclear(f"{hour}:{minute:02d} is not a time of day")
    return time(hour, minute)


def _unclear(why: str) -> JawadError:
    return JawadError(f"The schedule is not clear: {why}.",
                      suggestions=["Write it like " + ", ".join(_EXAMPLES) + "."])


def parse_schedule(text: str, now: datetime) -> Schedule:
    """The rule in ``text`` (see the module docstring); ``now`` anchors "tomorrow", "in 2 hours"
    and every N hours. A ``JawadError`` says what is unclear and gives examples."""
    words = " ".join(text.lower().replace(",", " ").split())
    now = now.astimezone().replace(second=0, microsecond=0)
    if not words:
        raise _unclear("it is empty")
    words = words.removesuffix(" at")  # "every day at": the time is missing (said as such below)
    if match := re.fullmatch(r"(?:every\s+)?hourly|every\s+hour", words):
        return Schedule("hours", hours=1, start=now + timedelta(hours=1))
    if match := re.fullmatch(r"every\s+(?P<n>\d+)\s+hours?", words):
        n = int(match.group("n"))
        if not 1 <= n <= 24 * 7:
            raise _unclear("every N hours takes N from 1 to 168")
        return Schedule("hours", hours=n, start=now + timedelta(hours=n))
    if match := re.fullmatch(rf"(?:every\s+day|daily|each\s+day|every\s+morning){_AT}", words):
        return Schedule("daily", at=_clock(match))
    if match := re.fullmatch(rf"(?:every\s+|on\s+)?(?:weekday|weekdays|work\s*days?)(?:\s+mornings?)?{_AT}", words):
        return Schedule("weekdays", at=_clock(match))
    if match := re.fullmatch(rf"(?:every|each|on)\s+(?P<day>[a-z]+?)s?{_AT}", words):
        weekday = _DAY_WORDS.get(match.group("day"))
        if weekday is not None:
            return Schedule("weekly", at=_clock(match), weekday=weekday)
    if match := re.fullmatch(r"in\s+(?P<n>\d+)\s+(?P<unit>minutes?|mins?|hours?)", words):
        n = int(match.group("n"))
        delta = timedelta(hours=n) if match.group("unit").startswith("h") else timedelta(minutes=n)
        return Schedule("once", start=now + delta)
    if match := re.fullmatch(rf"(?:once\s+)?(?P<when>today|tonight|tomorrow){_AT}", words):
        day = now.date() + timedelta(days=1 if match.group("when") == "tomorrow" else 0)
        start = datetime.combine(day, _clock(match)).astimezone()
        if start <= now:
            raise _unclear(f"{start.strftime('%H:%M')} today has passed")
        return Schedule("once", start=start)
    if match := re.fullmatch(r"(?:once\s+)?(?:on\s+)?(?P<date>\d{4}-\d{2}-\d{2})(?:[ t]|\s+at\s+)"
                             rf"{_TIME}", words):
        try:
            day = date.fromisoformat(match.group("date"))
        except ValueError:
            raise _unclear(f"{match.group('date')} is not a date") from None
        start = datetime.combine(day, _clock(match)).astimezone()
        if start <= now:
            raise _unclear(f"{start.strftime('%Y-%m-%d %H:%M')} has passed")
        return Schedule("once", start=start)
    raise _unclear(f"\"{text.strip()}\" is not a schedule Jawad knows")
