"""Accessibility checks run in the page: every control has an accessible name, and visible text has
WCAG AA contrast against the background it is drawn on (4.5:1; 3:1 for large or bold large text)."""

from __future__ import annotations

from typing import Any

UNNAMED_CONTROLS = """() => {
  const visible = (e) => e.getClientRects().length > 0 || e.closest("dialog");
  const name = (e) => {
    if (e.getAttribute("aria-label")) return e.getAttribute("aria-label");
    const by = e.getAttribute("aria-labelledby");
    if (by) return by.split(" ").map((id) => document.getElementById(id)?.textContent || "").join(" ");
    if (e.labels && e.labels.length) return [...e.labels].map((l) => l.textContent).join(" ");
    return e.tagName === "BUTTON" ? e.textContent : "";
  };
  return [...document.querySelectorAll("input, select, textarea, button, [role=tab]")]
    .filter((e) => visible(e) && e.type !== "hidden" && !name(e).trim())
    .map((e) => e.outerHTML.slice(0, 120));
}"""

LOW_CONTRAST = """() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (e) => {
    for (let n = e; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const e = t.parentElement;
    if (!t.textContent.trim() || !e || !e.getClientRects().length) continue;
    const s = getComputedStyle(e);
    if (s.visibility === "hidden" || s.clip === "rect(0px, 0px, 0px, 0px)") continue;
    const [a, b] = [lum(rgb(s.color)), lum(background(e))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) bad.push(`${ratio.toFixed(2)}: ${t.textContent.trim().slice(0, 40)}`);
  }
  return [...new Set(bad)];
}"""


def unnamed_controls(page: Any) -> list[str]:
    result: list[str] = page.evaluate(UNNAMED_CONTROLS)
    return result


def low_contrast(page: Any) -> list[str]:
    result: list[str] = page.evaluate(LOW_CONTRAST)
    return result
