// Small DOM helpers. Memory text is user data: it only ever goes in as text (never innerHTML).

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export const $ = (id) => document.getElementById(id);

// "2026-03-02 18:10" (UTC): the same on every machine, sortable, short.
export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toISOString().slice(0, 16).replace("T", " ");
}

export function fixed(x, digits = 3) {
  return typeof x === "number" ? x.toFixed(digits) : "";
}

export const STATE_LABEL = { active: "active", superseded: "superseded", soft_deleted: "deleted", purged: "purged" };

export function stateBadge(state) {
  return el("span", { class: `badge state-${state}` }, STATE_LABEL[state] || state);
}

export function short(text, n = 60) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}
