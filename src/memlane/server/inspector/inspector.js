// The memlane inspector: connect with an API key, pick a user (admin key) or see your own (bound
// key), and browse, search, edit and decide on memories through the REST API, live from the SSE stream.
import { Api, followEvents } from "./api.js";
import { ConsentView } from "./consent.js";
import { DetailPanel } from "./detail.js";
import { $, el, short, when } from "./dom.js";
import { MemoriesView } from "./memories.js";
import { SearchView } from "./search.js";

const RECENT = "memlane.inspector.users"; // admin: users opened before (localStorage)
const SESSION = "memlane.inspector.session"; // this tab: {key, user} to reconnect after a reload
const LOG_MAX = 50;

const app = {
  api: new Api(),
  stream: null,
  timer: null,
  announce(message) {
    $("announce").textContent = message;
  },
  fail(err) {
    $("alert").textContent = err.status ? `${err.message} (HTTP ${err.status})` : err.message;
    $("alert").hidden = false;
  },
  async act(call, message) {
    try {
      await call();
    } catch (err) {
      app.fail(err);
      return;
    }
    app.done(message);
  },
  done(message) {
    $("alert").hidden = true;
    app.announce(message);
    app.refresh();
  },
  refresh() { // soon, once: a burst of live events draws the page once
    clearTimeout(app.timer);
    app.timer = setTimeout(() => {
      const tab = document.querySelector('[role="tab"][aria-selected="true"]').id;
      if (tab === "tab-memories") app.memories.load();
      if (tab === "tab-search") app.search.refresh();
      app.consent.load(); // the pending count shows on its tab
      app.detail.refresh();
    }, 120);
  },
  openDetail(id) {
    app.detail.open(id);
  },
};
app.memories = new MemoriesView(app);
app.search = new SearchView(app);
app.consent = new ConsentView(app);
app.detail = new DetailPanel(app);

// --- live updates ----------------------------------------------------------------------------
function setLive(state) { // why a connection failed is the alert's to say, in words for people
  const text = { live: "Live updates: on", reconnecting: "Live updates: reconnecting…", off: "Live updates: off" };
  $("live").dataset.state = state;
  $("live").textContent = text[state];
}

function describe(event) {
  const d = event.data || {};
  if (event.type === "memory.proposed") return `${d.field}: ${d.summary} (waits for consent)`;
  if (event.type === "memory.proposal_decided") return `${d.field}: ${d.summary} — ${d.status}`;
  if (event.type === "memory.error") return d.message || d.code || "error";
  return d.summary || d.reason || event.memory_id || "";
}

function onEvent(type, event) {
  const name = type.replace(/^memory\./, "");
  const text = describe(event);
  const open = event.memory_id && type !== "memory.purged" && type !== "memory.candidate"
    ? el("button", { type: "button", class: "link", "aria-label": `open: ${short(text, 60)}`,
      onclick: () => app.openDetail(event.memory_id) }, "open") : null;
  const log = $("event-log");
  log.prepend(el("li", { class: `ev ev-${name}` },
    el("time", { datetime: event.at }, when(event.at).slice(11)), " ",
    el("span", { class: "badge" }, name), " ", el("span", {}, short(text, 90)), " ", open));
  while (log.children.length > LOG_MAX) log.lastChild.remove();
  if (type !== "memory.candidate") app.refresh();
}

function startStream() {
  if (app.stream) app.stream.abort();
  const control = new AbortController();
  app.stream = control;
  return new Promise((resolve, reject) => {
    followEvents(app.api, {
      signal: control.signal,
      onState: setLive,
      onEvent: (type, data) => (type === "ready" ? resolve(data) : onEvent(type, data)),
    }).catch(reject);
  });
}

// --- connecting ------------------------------------------------------------------------------
function recentUsers() {
  try { return JSON.parse(localStorage.getItem(RECENT) || "[]"); } catch { return []; }
}

function listRecent() {
  $("recent-users").replaceChildren(...recentUsers().map((u) => el("option", { value: u })));
}

function remember(user) {
  const users = [user, ...recentUsers().filter((u) => u !== user)].slice(0, 20);
  localStorage.setItem(RECENT, JSON.stringify(users));
  listRecent();
}

function enter() {
  const { user, bound } = app.api;
  $("who").textContent = bound ? `Acting for ${user} (your key is bound to this user)` : `Inspecting ${user}`;
  $("who").hidden = false;
  $("alert").hidden = true;
  $("main").hidden = false;
  $("event-log").replaceChildren();
  app.detail.id = null;
  $("detail").hidden = true;
  sessionStorage.setItem(SESSION, JSON.stringify({ key: app.api.key, user }));
  app.memories.rows = [];
  app.search.hits = null;
  $("results").replaceChildren();
  $("search-caption").textContent = "";
  app.memories.load();
  app.consent.load();
  app.announce(`Showing the memories of ${user}`);
}

async function connect(key, user = null) {
  Object.assign(app.api, { key, user: null, bound: false });
  $("main").hidden = true;
  $("pick-user").hidden = true;
  $("who").hidden = true;
  try {
    const ready = await startStream(); // a bound key's stream opens without a user header and names it
    Object.assign(app.api, { user: ready.user_id, bound: true });
    enter();
  } catch (err) {
    if (err.type !== "missing_user") { app.fail(err); return; }
    $("alert").hidden = true;
    $("user-help").textContent = key ? "Your key is an admin key: name the user to inspect."
      : "This server has no API keys and trusts this computer: name the user to inspect.";
    $("pick-user").hidden = false; // an admin key (or a keyless loopback server): pick the user
    listRecent();
    if (user) await openUser(user);
    else $("user").focus();
  }
}

async function openUser(user) {
  $("user").value = user;
  app.api.user = user;
  try {
    await startStream();
  } catch (err) {
    app.fail(err);
    return;
  }
  remember(user);
  enter();
}

$("connect").addEventListener("submit", (e) => { e.preventDefault(); connect($("api-key").value.trim()); });
$("pick-user").addEventListener("submit", (e) => {
  e.preventDefault();
  if ($("user").reportValidity()) openUser($("user").value.trim());
});

// --- tabs (arrow keys move between them) ----------------------------------------------------
const tabs = [...document.querySelectorAll('[role="tab"]')];
function select(tab, focus = true) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
  if (focus) tab.focus();
  if (tab.id === "tab-memories") app.memories.load();
  if (tab.id === "tab-consent") app.consent.load();
}
for (const tab of tabs) {
  tab.addEventListener("click", () => select(tab));
  tab.addEventListener("keydown", (e) => {
    const i = tabs.indexOf(tab);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(tabs[(to + tabs.length) % tabs.length]);
  });
}

// --- a reload in the same tab reconnects -------------------------------------------------------
const saved = JSON.parse(sessionStorage.getItem(SESSION) || "null");
if (saved) {
  $("api-key").value = saved.key;
  connect(saved.key, saved.user);
}
