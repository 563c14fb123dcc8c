// The confirmation and edit dialogs (native <dialog>: modal, focus kept inside, Escape cancels).
import { $ } from "./dom.js";

function run(dialog, form, cancel, onSubmit) {
  const opener = document.activeElement;
  return new Promise((resolve) => {
    const finish = (value) => {
      form.removeEventListener("submit", submit);
      cancel.removeEventListener("click", dismiss);
      dialog.removeEventListener("cancel", dismiss);
      dialog.close();
      if (opener && opener.isConnected) opener.focus();
      resolve(value);
    };
    const dismiss = (event) => { event.preventDefault(); finish(null); };
    const submit = async (event) => {
      event.preventDefault();
      const value = await onSubmit();
      if (value !== undefined) finish(value);
    };
    form.addEventListener("submit", submit);
    cancel.addEventListener("click", dismiss);
    dialog.addEventListener("cancel", dismiss);
    dialog.showModal();
  });
}

// Ask before an action; resolves to {reason} or null (cancelled).
export function confirmAction({ title, text, ok, danger = true }) {
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-ok").textContent = ok;
  $("confirm-ok").className = danger ? "danger" : "primary";
  $("confirm-reason").value = "";
  const done = run($("confirm"), $("confirm-form"), $("confirm-cancel"),
    async () => ({ reason: $("confirm-reason").value.trim() || null }));
  $("confirm-cancel").focus(); // the safe choice is the default one
  return done;
}

function tagList(text) {
  return text.split(",").map((t) => t.trim()).filter(Boolean);
}

// Edit a memory's summary, category, importance and tags; `save(changes)` does the PATCH and
// throws to keep the dialog open with the error shown. Resolves to the saved record or null.
export function editMemory(memory, save) {
  const fields = { summary: $("e-summary"), category: $("e-category"), importance: $("e-importance"), tags: $("e-tags") };
  fields.summary.value = memory.summary;
  fields.category.value = memory.category;
  fields.importance.value = String(memory.importance);
  fields.tags.value = memory.tags.join(", ");
  $("e-reason").value = "";
  const error = $("edit-error");
  error.hidden = true;
  const done = run($("edit"), $("edit-form"), $("edit-cancel"), async () => {
    const changes = {};
    if (fields.summary.value.trim() !== memory.summary) changes.summary = fields.summary.value.trim();
    if (fields.category.value.trim() && fields.category.value.trim() !== memory.category) {
      changes.category = fields.category.value.trim();
    }
    if (Number(fields.importance.value) !== memory.importance) changes.importance = Number(fields.importance.value);
    const tags = tagList(fields.tags.value);
    if (tags.join("\n") !== memory.tags.join("\n")) changes.tags = tags;
    if (Object.keys(changes).length === 0) return null; // nothing changed: close
    const reason = $("e-reason").value.trim();
    if (reason) changes.reason = reason;
    try {
      return await save(changes);
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
      return undefined; // stay open
    }
  });
  fields.summary.focus();
  return done;
}
