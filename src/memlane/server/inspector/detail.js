// The memory panel: its fields, its supersede chain (what replaced it, what it replaced) and its
// history as a timeline, newest last, each write with what changed, why and by whom.
import { memoryActions } from "./actions.js";
import { $, el, stateBadge, when } from "./dom.js";

const TRACKED = ["summary", "state", "category", "importance", "pinned", "tags", "key", "superseded_by", "valid_to",
  "expires_at"];
const show = (v) => (v === null || v === undefined ? "—" : Array.isArray(v) ? v.join(", ") || "—" : String(v));
const enc = encodeURIComponent;
const blank = (v) => v === null || v === undefined || v === false || v === "active" || (Array.isArray(v) && !v.length);

export class DetailPanel {
  constructor(app) {
    this.app = app;
    this.id = null;
    $("detail-close").addEventListener("click", () => this.close());
  }

  close() {
    this.id = null;
    $("detail").hidden = true;
    $("main").focus();
  }

  async open(id, { focus = true } = {}) {
    const api = this.app.api;
    const call = (this.call = (this.call || 0) + 1); // only the latest answer is drawn
    let m, history, earlier, replacedBy = null;
    try {
      [m, history, earlier] = await Promise.all([
        api.get(`/v1/memory/${enc(id)}`),
        api.get(`/v1/memory/${enc(id)}/history`, { limit: 500 }),
        api.post("/v1/memory/list", { filters: { superseded_by: id }, include_inactive: true, limit: 100 }),
      ]);
      if (m.superseded_by) replacedBy = await api.get(`/v1/memory/${enc(m.superseded_by)}`).catch(() => null);
    } catch (err) {
      if (call !== this.call) return;
      if (err.status === 404 && this.id === id && !focus) { this.close(); return; } // gone (the user was deleted)
      this.app.fail(err);
      return;
    }
    if (call !== this.call) return;
    this.id = id;
    this.draw(m, history.history, earlier.memories, replacedBy);
    $("detail").hidden = false;
    if (focus) $("detail-title").focus();
  }

  refresh() {
    if (this.id) this.open(this.id, { focus: false });
  }

  link(id, label) {
    return el("button", { type: "button", class: "link", dataset: { action: "open", id }, onclick: () => this.open(id) },
      label);
  }

  draw(m, history, earlier, replacedBy) {
    $("detail-title").textContent = m.summary;
    const facts = [
      ["State", stateBadge(m.state)], ["Type", m.type], ["Category", m.category], ["Key", m.key],
      ["Importance", m.importance], ["Pinned", m.pinned ? "yes" : "no"], ["Tags", show(m.tags)],
      ["Entities", show(m.entities)], ["Valid", `${when(m.valid_from) || "—"} → ${when(m.valid_to) || "now"}`],
      ["Created", when(m.created_at)], ["Updated", when(m.updated_at)], ["Id", el("code", {}, m.id)],
    ].filter(([, v]) => v !== null && v !== undefined && v !== "");
    const parts = [
      el("dl", { class: "facts" }, facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
      memoryActions(this.app, m, "detail-title", { history: false }),
    ];
    if (m.superseded_by) {
      parts.push(el("div", { class: "chain", role: "group", "aria-labelledby": "replaced-by" },
        el("h3", { id: "replaced-by" }, "Replaced by"),
        this.link(m.superseded_by, replacedBy ? replacedBy.summary : m.superseded_by)));
    }
    if (earlier.length) {
      parts.push(el("h3", {}, `Earlier versions (${earlier.length})`), el("ol", { class: "chain" }, earlier.map((e) =>
        el("li", {}, this.link(e.id, e.summary), " ",
          el("span", { class: "hint" }, `${when(e.valid_from) || "?"} → ${when(e.valid_to) || "?"}`)))));
    }
    parts.push(el("h3", {}, `History (${history.length} ${history.length === 1 ? "entry" : "entries"})`),
      el("ol", { class: "timeline" }, history.map((h) => this.entry(h))));
    $("detail-body").replaceChildren(...parts);
  }

  entry(h) {
    const changes = [];
    const old = h.old_value || {};
    const now = h.new_value || {};
    const snapshots = "summary" in old || "summary" in now;
    for (const field of snapshots ? TRACKED : Object.keys(now)) {
      if (!(field in now) && !(field in old)) continue;
      if (JSON.stringify(old[field]) === JSON.stringify(now[field])) continue;
      if (!(field in old) && blank(now[field])) continue; // a new memory's empty fields say nothing
      const to = field === "superseded_by" && now[field] ? this.link(now[field], "the memory that replaced it")
        : show(now[field]);
      changes.push(el("li", {}, el("span", { class: "field" }, field), ": ",
        field in old ? [el("del", {}, show(old[field])), " → "] : null, el("ins", {}, to)));
    }
    return el("li", { class: `event event-${h.event.toLowerCase()}` },
      el("div", { class: "when" }, el("time", { datetime: h.at }, when(h.at))),
      el("div", {},
        el("span", { class: "badge" }, h.event), " ",
        el("span", { class: "actor" }, h.actor ? `by ${h.actor}` : ""),
        h.reason ? el("p", { class: "reason" }, h.reason) : null,
        changes.length ? el("ul", { class: "changes" }, changes) : null));
  }
}
