"""Episodic time buckets: ``date_iso``, ISO ``week`` and ``year`` in the user's time zone (what
time-bounded questions filter on)."""

from __future__ import annotations

import re
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


# the dated opening of a captured episode (formation/capture.py): "On 2026-01-05 (W02, 2026) "
_EPISODE_DATE = re.compile(r"^On \d{4}-\d{2}-\d{2} \(W\d{2}, \d{4}\) ")


def undated(summary: str) -> str:
    """An episode's summary without its date, so two tellings of one episode compare as the same text."""
    return _EPISODE_DATE.sub("", summary, count=1)
