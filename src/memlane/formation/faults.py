"""Crash-test hook: ``MEMLANE_FAULT=<point>`` ends the process there (tests kill a worker mid-job)."""

from __future__ import annotations

import os


def fault(point: str) -> None:
    if os.environ.get("MEMLANE_FAULT") == point:
        os._exit(86)
