// The Consent view: proposed changes to sensitive fields (docs/consent.md), accepted or rejected here.
import { focusKey, restoreFocus } from "./actions.js";
import { confirmAction } from "./dialogs.js";
import { $, el, when } from "./dom.js";

export class ConsentView {
  constructor(app) {
    this.app = app;
    $("consent-filter").addEventListener("submit", (e) => { e.preventDefault(); this.load(); });
    $("p-status").addEventListener("change", () => this.load());
  }

  async load() {
    const key = focusKey();
    const call = (this.call = (this.call || 0) + 1); // only the latest answer is drawn
    let out, pending;
    try {
      const status = $("p-status").value;
      out = await this.app.api.get("/v1/memory/proposals", { status, limit: 200 });
      pending = status === "pending" ? out : await this.app.api.get("/v1/memory/proposals", { limit: 200 });
    } catch (err) {
      if (call === this.call) this.app.fail(err);
      return;
    }
    if (call !== this.call) return;
    const n = pending.proposals.length;
    $("consent-count").textContent = n ? `(${n})` : "";
    $("consent-count").setAttribute("aria-label", n ? `${n} pending` : "");
    const list = out.proposals;
    $("consent-caption").textContent = list.length === 0 ? `No ${$("p-status").value === "all" ? "" : `${$("p-status").value} `}proposals.`
      : `${list.length} ${list.length === 1 ? "proposal" : "proposals"}`;
    $("proposals").replaceChildren(...list.map((p) => this.card(p)));
    restoreFocus($("proposals"), key, $("consent-caption"));
  }

  card(p) {
    const sid = `prop-${p.id}`;
    const buttons = p.status === "pending" ? el("div", { class: "actions" },
      el("button", { type: "button", class: "primary", "aria-describedby": sid, dataset: { action: "accept", id: p.id },
        onclick: () => this.decide(p, "accept") }, "Accept"),
      el("button", { type: "button", "aria-describedby": sid, dataset: { action: "reject", id: p.id },
        onclick: () => this.decide(p, "reject") }, "Reject")) : null;
    return el("li", { class: "card", dataset: { id: p.id } },
      el("h3", { id: sid }, `${p.field}: `, el("span", { class: "proposed" }, p.candidate.summary)),
      el("dl", { class: "facts" },
        el("dt", {}, "Now"), el("dd", {}, p.current),
        el("dt", {}, "Proposed"), el("dd", {}, p.candidate.summary),
        el("dt", {}, "Why"), el("dd", {}, p.reason || "—"),
        el("dt", {}, "Kind"), el("dd", {}, p.sensitive ? "sensitive: waits for a decision" : "benign: applies once corroborated"),
        el("dt", {}, "Said"), el("dd", {}, `${when(p.observed_at)} (${p.signals} ${p.signals === 1 ? "time" : "times"})`),
        el("dt", {}, "Status"), el("dd", {}, p.status === "pending" ? `pending until ${when(p.expires_at)}`
          : `${p.status}${p.decided_by ? ` by ${p.decided_by}` : ""}${p.note ? `: ${p.note}` : ""}`)),
      el("div", { class: "actions" },
        el("button", { type: "button", class: "link", dataset: { action: "open", id: p.memory_id },
          onclick: () => this.app.openDetail(p.memory_id) }, "Open the memory")),
      buttons);
  }

  async decide(p, how) {
    const ok = await confirmAction({
      title: how === "accept" ? `Accept the new ${p.field}?` : `Reject the new ${p.field}?`,
      text: how === "accept" ? `“${p.current}” is replaced by “${p.candidate.summary}” (the old one stays in the history).`
        : `“${p.current}” stays; “${p.candidate.summary}” is not stored.`,
      ok: how === "accept" ? "Accept" : "Reject",
      danger: how === "reject",
    });
    if (!ok) return;
    const body = ok.reason ? { reason: ok.reason } : {};
    await this.app.act(() => this.app.api.post(`/v1/memory/proposals/${encodeURIComponent(p.id)}/${how}`, body),
      `${how === "accept" ? "Accepted" : "Rejected"}: ${p.candidate.summary}`);
  }
}
