"""The console page's script: the queue from the server's stream, the wait clocks (coloured against each row's
target), the urgent alert that names its calls, row clicks, the sign-in page once the session has ended."""

from __future__ import annotations

from app.console.queue_stream import SESSION_PATH, STREAM_PATH
from app.console.render import NEAR_SHARE

_SCRIPT = """
<script>
(() => {
  const STREAM = "@STREAM@", SESSION = "@SESSION@", SIGNED_OUT = "@SIGNED_OUT@", NEAR = @NEAR@, NAMED = 3;
  const baseTitle = "triage-dispatch console";
  const seen = new Set();
  let unread = [], offset = 0, selectedId = "", reloadWanted = false, lastReload = 0;
  const model = { order: [], rows: new Map(), banner: "", urgent: [], empty: "" };
  const shown = new Map();  // id -> {el, html}: the rows on screen
  let shownBody = null;

  function beep() {
    try {
      const ctx = new (window.AudioContext || window.webkitAudioContext)();
      const osc = ctx.createOscillator();
      osc.frequency.value = 880; osc.connect(ctx.destination); osc.start(); osc.stop(ctx.currentTime + 0.4);
    } catch (e) {}
  }
  function label(id) {
    const item = shown.get(id);
    return (item && item.el.dataset.label) || "ESI 1-2 call";
  }
  function showAlert() {
    // The unread urgent calls, most urgent first (the queue's order), named; a click opens the first.
    const banner = document.getElementById("urgent-banner");
    const place = (id) => { const at = model.order.indexOf(id); return at < 0 ? 1e9 : at; };
    // A call claimed meanwhile (no longer new) leaves the alert.
    unread = unread.filter((id) => model.urgent.includes(id) && id !== selectedId).sort((a, b) => place(a) - place(b));
    if (!unread.length) { clearAlert(); return; }
    const more = unread.length > NAMED ? ` (+${unread.length - NAMED} more)` : "";
    const text = `NEW: ${unread.slice(0, NAMED).map(label).join(" | ")}${more} - click to open`;
    if (banner) { banner.style.display = "block"; banner.textContent = text; banner.dataset.open = unread[0]; }
    document.title = `(${unread.length}) URGENT - ${baseTitle}`;
  }
  function clearAlert() {
    unread = [];
    const banner = document.getElementById("urgent-banner");
    if (banner) { banner.style.display = "none"; banner.dataset.open = ""; }
    document.title = baseTitle;
  }
  function alertUrgent(ids) {
    // Unclaimed ESI 1-2 calls: new ones, and on sign-in those already waiting. The call on screen is not news (an
    // override that made it urgent was made by the one looking at it).
    const fresh = ids.filter((id) => !seen.has(id) && id !== selectedId);
    ids.forEach((id) => seen.add(id));
    if (fresh.length) {
      unread.push(...fresh);
      beep();
    }
    if (unread.length) showAlert();
  }
  function clock(total) {
    total = Math.max(0, Math.floor(total));
    const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, s = String(total % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
  }
  function tickClocks() {
    const now = Date.now() / 1000 + offset;
    document.querySelectorAll("[data-since]").forEach((cell) => {
      const waited = now - parseFloat(cell.dataset.since);
      const text = clock(waited);
      if (cell.textContent !== text) cell.textContent = text;
      if (cell.dataset.target) {
        const target = parseFloat(cell.dataset.target);
        const level = waited >= target ? "wait-late" : waited >= NEAR * target ? "wait-warn" : "wait-ok";
        const cls = cell.tagName === "TD" ? level : `wait-clock ${level}`;
        if (cell.className !== cls) cell.className = cls;
      }
    });
  }
  function render() {
    const slot = document.getElementById("engine-banner-slot");
    if (slot && slot.innerHTML !== model.banner) slot.innerHTML = model.banner;
    const body = document.querySelector("#queue tbody");
    if (!body) return;
    const queue = document.getElementById("queue");
    queue.dataset.count = String(model.order.length);
    queue.dataset.urgent = model.urgent.join(",");
    if (body !== shownBody) { shown.clear(); body.innerHTML = ""; shownBody = body; }
    for (const [id, item] of shown) if (!model.rows.has(id)) { item.el.remove(); shown.delete(id); }
    const empty = body.querySelector("tr.empty-row");
    if (empty && model.order.length) empty.remove();
    const template = document.createElement("template");
    model.order.forEach((id, index) => {
      const html = model.rows.get(id);
      if (html === undefined) return;
      let item = shown.get(id);
      if (!item || item.html !== html) {
        template.innerHTML = html;
        const el = template.content.firstElementChild;
        if (item) item.el.replaceWith(el);
        item = { el, html };
        shown.set(id, item);
      }
      item.el.classList.toggle("selected", id === selectedId);
      if (body.children[index] !== item.el) body.insertBefore(item.el, body.children[index] || null);
    });
    if (!model.order.length && !body.querySelector("tr.empty-row") && model.empty) {
      template.innerHTML = model.empty;
      body.appendChild(template.content.firstElementChild);
    }
    tickClocks();
  }
  function onQueue(event) {
    const patch = JSON.parse(event.data);
    offset = patch.now - Date.now() / 1000;
    if (patch.shell !== undefined) { model.rows = new Map(); model.empty = patch.empty; reloadWanted = true; }
    for (const [id, html] of Object.entries(patch.rows || {})) {
      model.rows.set(id, html);
      if (id === selectedId) reloadWanted = true;
    }
    for (const id of patch.removed || []) { model.rows.delete(id); if (id === selectedId) reloadWanted = true; }
    if (patch.order) model.order = patch.order;
    if (patch.banner !== undefined) model.banner = patch.banner;
    if (patch.urgent) model.urgent = patch.urgent;
    render();
    if (patch.urgent) alertUrgent(patch.urgent);
    maybeReload();
  }
  function maybeReload() {
    // The open incident is reloaded when its row changed, and every second while its guidance is being written.
    if (!selectedId) return;
    const item = shown.get(selectedId);
    const writing = item !== undefined && /engine-(prefilling|generating)/.test(item.html);
    if ((reloadWanted || writing) && Date.now() - lastReload >= 1000) {
      const button = document.querySelector("#reload-incident");
      if (!button) return;
      reloadWanted = false; lastReload = Date.now();
      button.click();
    }
  }
  function watchQueue() {
    // A stream the server refuses (its session ended: the user signed in on another screen, signed out, or was
    // signed out by a supervisor) is not retried by the browser: the page asks whether the session is live and, if
    // not, goes to the sign-in page, which says why. A network blip is retried by the browser itself.
    const source = new EventSource(STREAM);
    source.addEventListener("queue", onQueue);
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) return;
      const again = () => setTimeout(watchQueue, 2000);
      fetch(SESSION, { cache: "no-store" }).then((answer) => {
        if (answer.status === 401) window.location.assign(SIGNED_OUT); else again();
      }, again);
    });
  }
  if (window.EventSource) watchQueue();
  setInterval(() => {
    if (shownBody === null || !document.body.contains(shownBody)) render();  // Gradio drew the queue anew
    if (unread.length) showAlert();  // the banner and the rows it names may be drawn after the first patch
    tickClocks();
    maybeReload();
  }, 1000);
  setInterval(() => {
    // The dashboard refreshes itself while it is on screen (every 30 s), not in a hidden tab.
    const plot = document.querySelector("#dashboard-plot");
    const refresh = document.querySelector("#dashboard-refresh");
    if (plot && refresh && plot.offsetParent !== null && !document.hidden) refresh.click();
  }, 30000);
  function openIncident(id) {
    const box = document.querySelector("#selected-id textarea, #selected-id input");
    if (!box || !id) return;
    selectedId = id;
    render();
    box.value = selectedId;
    box.dispatchEvent(new Event("input", { bubbles: true }));
    lastReload = Date.now();
    const open = document.querySelector("#open-incident");
    if (open) open.click();
  }
  function pageAction(payload) {
    // A click in the incident or the units tab, sent with the state the incident was shown in.
    const box = document.querySelector("#page-action textarea, #page-action input");
    const send = document.querySelector("#page-action-send");
    if (!box || !send) return;
    box.value = payload;
    box.dispatchEvent(new Event("input", { bubbles: true }));
    setTimeout(() => send.click(), 50);
    if (payload.startsWith("unit:")) setTimeout(() => {
      const refresh = document.querySelector("#units-refresh");
      if (refresh && refresh.offsetParent !== null) refresh.click();
    }, 1200);
  }
  document.addEventListener("click", (event) => {
    const at = (selector) => event.target.closest && event.target.closest(selector);
    const banner = at("#urgent-banner");
    if (banner) { const first = banner.dataset.open; clearAlert(); openIncident(first); return; }
    const step = at(".card-steps li[data-step]");
    if (step) { pageAction(`step:${step.dataset.step}:${step.dataset.done === "1" ? 0 : 1}`); return; }
    const move = at("button.unit-move");
    if (move) { pageAction(`unit:${move.dataset.unit}:${move.dataset.status}:${move.dataset.from}`); return; }
    const link = at("[data-open]");
    if (link) { event.preventDefault(); openIncident(link.dataset.open); return; }
    const row = at("tr.incident");
    if (row) openIncident(row.dataset.id);
  });
})();
</script>
"""

SIGNED_OUT_PATH = "/login?next=/console/&error=ended"
"""Where a console whose session ended goes: the sign-in page, saying why."""
PAGE_SCRIPT = (
    _SCRIPT.replace("@STREAM@", STREAM_PATH)
    .replace("@SESSION@", SESSION_PATH)
    .replace("@SIGNED_OUT@", SIGNED_OUT_PATH)
    .replace("@NEAR@", str(NEAR_SHARE))
)
"""In the console page's head (`gr.mount_gradio_app(head=...)`)."""
