"""Episodic time buckets: ``date_iso``, ISO ``week`` and ``year`` in the user's time zone (what
time-bounded questions filter on)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memlane.model.errors import ValidationError


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError(f"unknown time zone {name!r}; use an IANA name such as Europe/Lisbon") from None


def buckets(moment: datetime, tz: str = "UTC") -> tuple[str, int, int]:
    local = moment.astimezone(zone(tz))
    iso_year, iso_week, _ = local.isocalendar()
    return local.date().isoformat(), iso_week, iso_year
