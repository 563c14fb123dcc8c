// What a person can do to one memory: history, edit, pin, delete, restore, purge.
import { confirmAction, editMemory } from "./dialogs.js";
import { el, short } from "./dom.js";

const path = (id, tail = "") => `/v1/memory/${encodeURIComponent(id)}${tail}`;

async function edit(app, m) {
  const saved = await editMemory(m, (changes) => app.api.patch(path(m.id), changes));
  if (saved) app.done(`Saved: ${short(saved.summary)}`);
}

function pin(app, m) {
  return app.act(() => app.api.patch(path(m.id), { pinned: !m.pinned }),
    `${m.pinned ? "Unpinned" : "Pinned"}: ${short(m.summary)}`);
}

async function remove(app, m) {
  const ok = await confirmAction({
    title: "Delete this memory?",
    text: `“${short(m.summary, 200)}” stops being used in answers. It stays in the history and can be restored.`,
    ok: "Delete",
  });
  if (ok) await app.act(() => app.api.del(path(m.id), { reason: ok.reason }), `Deleted: ${short(m.summary)}`);
}

function restore(app, m) {
  return app.act(() => app.api.post(path(m.id, "/restore"), {}), `Restored: ${short(m.summary)}`);
}

async function purge(app, m) {
  const ok = await confirmAction({
    title: "Purge this memory for good?",
    text: `“${short(m.summary, 200)}” and its text in the history are erased. This cannot be undone.`,
    ok: "Purge for good",
  });
  if (ok) {
    const body = ok.reason ? { reason: ok.reason } : {};
    await app.act(() => app.api.post(path(m.id, "/purge"), body), `Purged: ${short(m.summary)}`);
  }
}

// The buttons for memory `m`; `describedBy` is the id of the element holding its summary, so a
// screen reader says which memory a "Delete" button deletes.
export function memoryActions(app, m, describedBy, { history = true } = {}) {
  const button = (label, action, fn, cls) => el("button", {
    type: "button", class: cls, "aria-describedby": describedBy, dataset: { action, id: m.id }, onclick: fn,
  }, label);
  const buttons = [];
  if (history) buttons.push(button("History", "history", () => app.openDetail(m.id)));
  if (m.state === "active") {
    buttons.push(button("Edit", "edit", () => edit(app, m)));
    buttons.push(button(m.pinned ? "Unpin" : "Pin", "pin", () => pin(app, m)));
    buttons.push(button("Delete", "delete", () => remove(app, m), "danger"));
  }
  if (m.state === "soft_deleted") buttons.push(button("Restore", "restore", () => restore(app, m)));
  if (m.state !== "purged") buttons.push(button("Purge", "purge", () => purge(app, m), "danger"));
  return el("div", { class: "actions" }, buttons);
}

// Where focus was (a memory's action button), to put it back after a list is drawn again.
export function focusKey() {
  const a = document.activeElement;
  return a && a.dataset && a.dataset.id ? { id: a.dataset.id, action: a.dataset.action } : null;
}

export function restoreFocus(container, key, fallback) {
  const now = document.activeElement;
  if (!key || (now && now !== document.body)) return; // focus still somewhere: leave it
  const same = container.querySelector(`[data-id="${CSS.escape(key.id)}"][data-action="${CSS.escape(key.action)}"]`);
  const any = container.querySelector(`[data-id="${CSS.escape(key.id)}"]`);
  const target = same || any || fallback;
  if (target) target.focus();
}
