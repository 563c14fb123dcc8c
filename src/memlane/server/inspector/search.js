// The Search view: POST /v1/memory/search, each result with its score breakdown (why it ranked there).
import { focusKey, memoryActions, restoreFocus } from "./actions.js";
import { $, el, fixed, stateBadge } from "./dom.js";

const SIGNALS = [
  ["similarity", "Similarity (dense, with keyword)"], ["keyword", "Keyword match"], ["importance", "Importance"],
  ["recency", "Recency"], ["pinned", "Pinned and relevant"], ["relations", "Relations (added)"],
  ["brevity", "Brevity (subtracted)"], ["subject", "About someone else (subtracted)"],
  ["kind", "No answer of the kind asked (subtracted)"], ["decay", "Age decay (factor)"], ["type_weight", "Type weight (factor)"],
];

export class SearchView {
  constructor(app) {
    this.app = app;
    this.hits = null;
    $("search").addEventListener("submit", (e) => { e.preventDefault(); this.run(); });
  }

  async run({ refresh = false } = {}) {
    const query = $("q").value.trim();
    if (!query) { if (!refresh) $("q").focus(); return; }
    const key = focusKey();
    const call = (this.call = (this.call || 0) + 1); // only the latest answer is drawn
    let out;
    try {
      out = await this.app.api.post("/v1/memory/search", {
        query, limit: Number($("q-limit").value), include_inactive: $("q-inactive").checked,
      });
    } catch (err) {
      if (call === this.call) this.app.fail(err);
      return;
    }
    if (call !== this.call) return;
    this.hits = out.results;
    $("search-caption").textContent = out.results.length === 0 ? `Nothing found for “${query}”.`
      : `${out.results.length} ${out.results.length === 1 ? "result" : "results"} for “${query}”, best first`;
    $("results").replaceChildren(...out.results.map((hit, n) => this.result(hit, n)));
    restoreFocus($("results"), key, $("search-caption"));
  }

  refresh() {
    if (this.hits !== null) this.run({ refresh: true });
  }

  result(hit, n) {
    const m = hit.memory;
    const b = hit.breakdown;
    const sid = `hit-${n}`;
    const rows = SIGNALS.map(([name, label]) => {
      const weight = b.weights && name in b.weights ? b.weights[name] : null;
      const value = b[name];
      return el("tr", {},
        el("th", { scope: "row" }, label),
        el("td", { class: "num" }, fixed(value)),
        el("td", {}, value >= 0 && value <= 1 ? el("meter", { min: 0, max: 1, value, "aria-label": `${label} ${fixed(value)}` }) : null),
        el("td", { class: "num" }, weight === null ? "" : `× ${fixed(weight, 2)}`));
    });
    return el("li", { class: "hit", dataset: { id: m.id } },
      el("div", { class: "hit-head" },
        el("span", { class: "score", title: "final score" }, fixed(hit.score)),
        el("p", { id: sid, class: "summary" }, m.summary),
        stateBadge(m.state)),
      el("p", { class: "hint" }, `${m.type} · ${m.category} · importance ${m.importance}${m.pinned ? " · pinned" : ""}`),
      el("details", { open: n === 0 },
        el("summary", {}, `Score breakdown: final ${fixed(b.final)}`),
        el("table", { class: "breakdown" },
          el("caption", { class: "sr-only" }, `Why “${m.summary}” ranked #${n + 1}`),
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Signal"), el("th", { scope: "col" }, "Value"),
            el("th", { scope: "col" }, el("span", { class: "sr-only" }, "Bar")), el("th", { scope: "col" }, "Weight"))),
          el("tbody", {}, rows),
          el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, "Final score"), el("td", { class: "num" }, fixed(b.final)),
            el("td", {}), el("td", {}))))),
      memoryActions(this.app, m, sid));
  }
}
