// The Memories view: filters (type, category, state, pinned) and a table, newest first.
import { focusKey, memoryActions, restoreFocus } from "./actions.js";
import { $, el, stateBadge, when } from "./dom.js";

const PAGE = 50;

export class MemoriesView {
  constructor(app) {
    this.app = app;
    this.rows = [];
    this.categories = new Set();
    $("filters").addEventListener("submit", (e) => { e.preventDefault(); this.load(); });
    for (const id of ["f-type", "f-state", "f-pinned"]) $(id).addEventListener("change", () => this.load());
    $("more").addEventListener("click", () => this.load({ more: true }));
  }

  query() {
    const q = { type: $("f-type").value, category: $("f-category").value.trim(), pinned: $("f-pinned").value };
    const state = $("f-state").value;
    if (state) q.state = state;
    else q.include_inactive = true;
    return q;
  }

  async load({ more = false } = {}) {
    const offset = more ? this.rows.length : 0;
    const limit = more ? PAGE : Math.max(PAGE, this.rows.length); // a refresh keeps what was shown
    const key = focusKey();
    const call = (this.call = (this.call || 0) + 1); // only the latest answer is drawn
    const table = $("memories");
    table.setAttribute("aria-busy", "true");
    let page;
    try {
      page = await this.app.api.get("/v1/memory", { ...this.query(), limit, offset });
    } catch (err) {
      if (call === this.call) { this.app.fail(err); table.setAttribute("aria-busy", "false"); }
      return;
    }
    if (call !== this.call) return;
    this.rows = more ? [...this.rows, ...page.memories] : page.memories;
    this.draw(page.memories.length === limit);
    table.setAttribute("aria-busy", "false");
    restoreFocus(table, key, $("memories-caption"));
  }

  draw(hasMore) {
    const body = $("memories").tBodies[0];
    body.replaceChildren(...this.rows.map((m) => this.row(m)));
    const n = this.rows.length;
    $("memories-caption").textContent = n === 0 ? `No memories of ${this.app.api.user} match these filters.`
      : `${n}${hasMore ? "+" : ""} ${n === 1 ? "memory" : "memories"} of ${this.app.api.user}, newest first`;
    $("more").hidden = !hasMore;
    for (const m of this.rows) this.categories.add(m.category);
    $("categories").replaceChildren(...[...this.categories].sort().map((c) => el("option", { value: c })));
  }

  row(m) {
    const sid = `sum-${m.id}`;
    return el("tr", { dataset: { id: m.id }, class: `state-${m.state}` },
      el("th", { scope: "row", id: sid, class: "summary" },
        m.pinned ? el("span", { class: "badge pinned" }, "pinned") : null,
        m.shared_by ? el("span", { class: "badge shared" }, `shared by ${m.shared_by}`) : null,
        m.summary,
        m.key ? el("code", { class: "key" }, m.key) : null),
      el("td", { dataset: { label: "Type" } }, m.type),
      el("td", { dataset: { label: "Category" } }, m.category),
      el("td", { dataset: { label: "State" } }, stateBadge(m.state)),
      el("td", { class: "num", dataset: { label: "Importance" } }, m.importance),
      el("td", { class: "time", dataset: { label: "Updated (UTC)" } }, when(m.updated_at)),
      el("td", { dataset: { label: "Actions" } }, memoryActions(this.app, m, sid)));
  }
}
