// The REST API and the Server-Sent Events stream of memlane, as the inspector uses them.
// EventSource cannot send an Authorization header, so the stream is read with fetch().

export class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

export class Api {
  constructor() {
    this.key = "";      // the API key typed in ("" on a loopback server without keys)
    this.user = null;   // the user acted for
    this.bound = false; // true: the key is bound to this.user (no header needed)
  }

  headers(extra = {}) {
    const h = { ...extra };
    if (this.key) h.Authorization = `Bearer ${this.key}`;
    if (this.user && !this.bound) h["X-Memlane-User"] = this.user;
    return h;
  }

  async request(method, path, { query, body } = {}) {
    const url = new URL(path, location.origin);
    for (const [k, v] of Object.entries(query || {})) {
      if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
    }
    const init = { method, headers: this.headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
    if (body !== undefined) init.body = JSON.stringify(body);
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      throw new ApiError(0, "network", `the server did not answer (${err.message})`);
    }
    if (!response.ok) throw await errorOf(response);
    return response.json();
  }

  get(path, query) { return this.request("GET", path, { query }); }
  post(path, body, query) { return this.request("POST", path, { body, query }); }
  patch(path, body) { return this.request("PATCH", path, { body }); }
  del(path, query) { return this.request("DELETE", path, { query }); }
}

async function errorOf(response) {
  let type = "http_error";
  let message = `HTTP ${response.status}`;
  try {
    const body = await response.json();
    if (body && body.error) ({ type, message } = body.error);
  } catch { /* not JSON: keep the status line */ }
  return new ApiError(response.status, type, message);
}

// Parse one SSE block ("id: 3\nevent: memory.created\ndata: {...}") into {id, event, data}.
function parseBlock(block) {
  const out = { id: null, event: "message", data: [], retry: null };
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (!line || line.startsWith(":")) continue;
    const at = line.indexOf(":");
    const field = at < 0 ? line : line.slice(0, at);
    const value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
    if (field === "id") out.id = value;
    else if (field === "event") out.event = value;
    else if (field === "data") out.data.push(value);
    else if (field === "retry" && /^\d+$/.test(value)) out.retry = Number(value);
  }
  return { ...out, data: out.data.join("\n") };
}

// Follow /v1/memory/events until `signal` aborts, reconnecting with Last-Event-ID after a drop.
// onEvent(type, payload) gets "ready" first; onState("live" | "reconnecting" | "off").
// The first connection's HTTP error is thrown (a wrong key or a missing user is not retried).
export async function followEvents(api, { onEvent, onState, signal }) {
  let lastId = null;
  let wait = 3000;
  let first = true;
  while (!signal.aborted) {
    try {
      const headers = api.headers(lastId === null ? {} : { "Last-Event-ID": lastId });
      const response = await fetch("/v1/memory/events", { headers, signal });
      if (!response.ok) throw await errorOf(response);
      first = false;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const blocks = buffer.split(/\r\n\r\n|\n\n|\r\r/);
        buffer = blocks.pop();
        for (const block of blocks) {
          const { id, event, data, retry } = parseBlock(block);
          if (retry !== null) wait = retry;
          if (id !== null) lastId = id;
          if (!data) continue;
          if (event === "ready") onState("live");
          onEvent(event, JSON.parse(data));
        }
      }
    } catch (err) {
      if (signal.aborted) break;
      if (first) { onState("off"); throw err; }
    }
    if (signal.aborted) break;
    onState("reconnecting");
    await new Promise((done) => setTimeout(done, wait));
  }
  onState("off");
}
