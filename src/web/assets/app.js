// rulebook web: draws any rules file from what the server sends (boards as spaces with
// positions and edges, one seat's view placed on them) and plays it by clicks.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const UNIT = 64; // pixels between neighbouring spaces

let info = null; // GET /api/game
let page = null; // GET /api/seat/K
let status = null; // GET /api/status
let seat = null; // the seat shown (from 0), null: spectator
let at = null; // looking back: after this many decisions
let selection = []; // values clicked so far towards one action
const whyCache = new Map();
// The host's token, written into the page by the server: every /api/ request carries it.
const TOKEN = document.querySelector('meta[name="rulebook-token"]').content;

async function api(path, body) {
  const opts = body === undefined ? { headers: { "x-rulebook-token": TOKEN } } : {
    method: "POST",
    headers: { "content-type": "application/json", "x-rulebook-token": TOKEN },
    body: JSON.stringify(body),
  };
  const r = await fetch(path, opts);
  return r.json();
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function seatName(s) { return s === null ? "spectator" : "p" + (s + 1); }
function seatOf(name) { const m = /^p(\d+)$/.exec(name || ""); return m ? Number(m[1]) - 1 : null; }
function humans() { return info ? info.setup.humans.map((h, i) => h ? i : -1).filter((i) => i >= 0) : []; }

// ---- the rules: title, problems, new-game form ----

function renderInfo() {
  $("title").textContent = info.title || "rulebook";
  document.title = (info.title || "rulebook") + " · rulebook web";
  $("file").textContent = info.file;
  const probs = $("problems");
  probs.replaceChildren();
  const shown = info.problems;
  probs.hidden = shown.length === 0;
  for (const p of shown) {
    const caret = " ".repeat(Math.max(0, p.column - 1)) + "^ " + p.label;
    probs.append(el("div", { class: "problem " + p.severity },
      el("b", {}, `${p.severity}[${p.code}]`),
      ` line ${p.line}, column ${p.column}: ${p.message}`,
      el("pre", {}, p.source_line + "\n" + caret + (p.help ? "\nhelp: " + p.help : ""))));
  }
  $("trouble").hidden = !info.trouble;
  $("trouble").textContent = info.trouble || "";
  // New game form.
  const s = info.setup;
  $("players").replaceChildren(...range(info.min_players, info.max_players + 1).map((n) =>
    el("option", { value: n, selected: n === s.players ? "" : null }, String(n))));
  $("variant").replaceChildren(el("option", { value: "" }, "(none)"), ...info.variants.map(([v, d]) =>
    el("option", { value: v, selected: v === s.variant ? "" : null }, d ? `${v}: ${d}` : v)));
  $("seed").value = s.seed;
  $("agent").replaceChildren(...info.agents.map((a) => el("option", { value: a, selected: a === s.agent ? "" : null }, a)));
  renderHumans();
  const opts = [el("option", { value: "spectator" }, "spectator")];
  // Only the seats people play: an agent's view is never shown.
  for (let i = 0; i < s.players; i++) if (s.humans[i]) opts.push(el("option", { value: i }, seatName(i)));
  $("seat").replaceChildren(...opts);
  $("seat").value = seat === null ? "spectator" : String(seat);
}

function renderHumans() {
  const n = Number($("players").value || info.setup.players);
  const box = $("humans");
  box.replaceChildren("human:");
  for (let i = 0; i < n; i++) {
    box.append(el("label", {}, el("input", { type: "checkbox", class: "human", "data-seat": i,
      checked: (info.setup.humans[i] ?? false) ? "" : null }), seatName(i)));
  }
}

function range(a, b) { const out = []; for (let i = a; i < b; i++) out.push(i); return out; }

// ---- one seat's page ----

// A legal action is chosen by clicking, in order, the values of its arguments that the page
// shows (spaces, cards, zones): its own parameters, then the choices a sequence action's effect
// makes (`place at=g1 take=a7`: g1, then a7). Values not shown (numbers, enums) are skipped:
// the action list, narrowed by the clicks, chooses them.
function shown() {
  if (!page._shown) {
    const out = new Set();
    for (const b of info.boards) for (const s of b.spaces) out.add(s.name);
    for (const z of page.scene.zones) {
      out.add(z.zone);
      for (const c of z.kind === "pile" ? z.cards.slice(-1) : z.cards) out.add(c.name);
    }
    page._shown = out;
  }
  return page._shown;
}

// The positions in a.args of the values one clicks, in order.
function clicks(a) {
  if (!a._clicks) {
    const s = shown();
    a._clicks = a.args.map((_, i) => i).filter((i) => s.has(a.args[i][1]));
  }
  return a._clicks;
}

function candidates(sel) {
  if (!page || at !== null) return [];
  return page.legal.filter((a) => {
    const c = clicks(a);
    return sel.length <= c.length && sel.every((v, k) => a.args[c[k]][1] === v);
  });
}

// The values that may be clicked next.
function targetsOf(sel) {
  const out = new Set();
  for (const a of candidates(sel)) {
    const c = clicks(a);
    if (c.length > sel.length) out.add(a.args[c[sel.length]][1]);
  }
  return out;
}

function click(value) {
  if (!targetsOf(selection).has(value)) {
    selection = [];
    if (!targetsOf([]).has(value)) { render(); return; }
  }
  selection.push(value);
  const c = candidates(selection);
  const exact = c.filter((a) => clicks(a).length === selection.length);
  if (c.length === 1 || (exact.length === 1 && targetsOf(selection).size === 0)) {
    act((exact[0] || c[0]).text);
  } else if (c.length === 0) {
    selection = [];
  }
  render();
}

async function act(text) {
  selection = [];
  hideWhy();
  const r = await api(`/api/seat/${seat}/apply`, { action: text });
  if (r.error) showTrouble(r.error.message);
  await refresh(true);
}

function showTrouble(msg) {
  $("trouble").hidden = false;
  $("trouble").textContent = msg;
}

function render() {
  hideWhy(); // its target may be gone
  $("seat").value = seat === null ? "spectator" : String(seat);
  const boards = $("boards");
  const zones = $("zones");
  boards.replaceChildren();
  zones.replaceChildren();
  $("actions").replaceChildren();
  $("log").replaceChildren();
  $("vars").replaceChildren();
  $("outcome").textContent = "";
  if (!info || !page) { $("status").textContent = info && info.title ? "" : "the rules have errors"; return; }
  const v = page.view;
  const targets = targetsOf(selection);
  // Status line.
  let line;
  if (v.over) {
    const w = v.winners || [];
    line = w.length === 0 ? "game over: a draw" : `game over: ${w.map(seatName).join(", ")} ${w.length > 1 ? "win" : "wins"}`;
  } else {
    line = `${v.actor} to act` + (seatOf(v.actor) === seat && seat !== null ? " (you)" : "");
  }
  $("status").textContent = `${line} · you are ${seatName(seat)}`;
  $("outcome").textContent = line;
  // Boards.
  info.boards.forEach((b, bi) => boards.append(drawBoard(b, page.scene.boards[bi] || [], targets)));
  // Zones.
  // The seat's own zones first (its hand), then those holding a target, then the rest, each
  // group in the rules' order.
  const rank = (z) => seat !== null && z.owner === seat ? 0
    : targets.has(z.zone) || z.cards.some((c) => targets.has(c.name)) ? 1 : 2;
  page.scene.zones.map((z, i) => [rank(z), i, z]).sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .forEach(([, , z]) => zones.append(drawZone(z, targets)));
  // Variables and scores.
  for (const [name, value] of page.scene.vars) $("vars").append(el("tr", {}, el("td", {}, name), el("td", {}, value)));
  if (v.scores) v.scores.forEach((s, i) => $("vars").append(el("tr", {}, el("td", {}, `score ${seatName(i)}`), el("td", {}, String(s)))));
  // Actions.
  for (const a of page.legal) {
    const li = el("li", { class: "action", "data-text": a.text, onclick: () => act(a.text) }, a.text);
    if (selection.length && !candidates(selection).includes(a)) li.style.opacity = 0.4;
    $("actions").append(li);
  }
  if (page.legal.length === 0 && at === null && !v.over) $("actions").append(el("li", { class: "none" }, `waiting for ${v.actor}`));
  // Log and slider.
  const slider = $("slider");
  slider.max = page.decisions;
  slider.value = at === null ? page.decisions : at;
  page.log.forEach(([who, text]) => $("log").append(el("li", {}, `${who}: ${text}`)));
  $("looking").hidden = at === null;
  $("looking").textContent = at === null ? "" : `after decision ${at} of ${page.decisions} (move the slider to the right end to play on)`;
}

function drawBoard(b, spaces, targets) {
  const xs = b.spaces.map((s) => s.x), ys = b.spaces.map((s) => s.y);
  const minx = Math.min(...xs), maxx = Math.max(...xs), miny = Math.min(...ys), maxy = Math.max(...ys);
  const pad = UNIT * 0.7;
  const px = (x) => (x - minx) * UNIT + pad, py = (y) => (y - miny) * UNIT + pad;
  const w = (maxx - minx) * UNIT + 2 * pad, h = (maxy - miny) * UNIT + 2 * pad;
  // Scaled down to the space beside the side panel (CSS max-width), never under it.
  const g = svg("svg", { class: "board", "data-board": b.name, width: w, height: h, viewBox: `0 0 ${w} ${h}` });
  const hex = b.shape === "hex";
  // A hexagon standing on a corner, its neighbours' centres 1 unit away (a small gap left).
  const hexagon = (cx, cy) => range(0, 6).map((k) => {
    const a = Math.PI / 3 * k + Math.PI / 6, r = UNIT / Math.sqrt(3) * 0.97;
    return `${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`;
  }).join(" ");
  if (!b.cells) {
    for (const [s, t] of b.edges) {
      const a = b.spaces[s], c = b.spaces[t];
      g.append(svg("line", { class: "edge", x1: px(a.x), y1: py(a.y), x2: px(c.x), y2: py(c.y) }));
    }
  }
  b.spaces.forEach((s, i) => {
    const cls = ["space"];
    if (targets.has(s.name)) cls.push("target");
    if (selection.includes(s.name)) cls.push("selected");
    const grp = svg("g", { class: cls.join(" "), "data-value": s.name, "data-board": b.name });
    const cx = px(s.x), cy = py(s.y);
    if (hex) grp.append(svg("polygon", { class: "cell", points: hexagon(cx, cy) }));
    else if (b.cells) grp.append(svg("rect", { x: cx - UNIT / 2, y: cy - UNIT / 2, width: UNIT, height: UNIT }));
    else grp.append(svg("circle", { class: "spot", cx, cy, r: UNIT * 0.36 }));
    const label = svg("text", { class: "label", x: cx - UNIT / 2 + 3, y: cy - UNIT / 2 + 10 });
    if (hex) { label.setAttribute("x", cx - UNIT * 0.12); label.setAttribute("y", cy - UNIT * 0.3); }
    else if (!b.cells) { label.setAttribute("x", cx - UNIT * 0.3); label.setAttribute("y", cy - UNIT * 0.38); }
    label.textContent = s.name;
    grp.append(label);
    const tokens = spaces[i] || [];
    tokens.forEach((t, k) => {
      const ty = cy + (k - (tokens.length - 1) / 2) * 15;
      const who = seatOf(t.text);
      if (who !== null) grp.append(svg("circle", { class: "disc seat" + who, cx, cy: ty, r: tokens.length > 1 ? 7 : 16 }));
      const tx = svg("text", { class: "token " + t.kind + (who !== null ? "" : ""), x: cx, y: ty, "data-value": t.value });
      if (who !== null) { tx.style.fill = "#fff"; tx.style.fontSize = tokens.length > 1 ? "8px" : "12px"; }
      tx.textContent = t.kind === "back" ? "▮" : t.text;
      grp.append(tx);
    });
    grp.addEventListener("click", () => click(s.name));
    hoverWhy(grp, s.name, "space:" + b.name);
    g.append(grp);
  });
  return g;
}

function drawZone(z, targets) {
  const cls = ["zone", z.kind];
  if (targets.has(z.zone)) cls.push("target");
  const box = el("div", { class: cls.join(" "), "data-zone": z.zone, "data-value": z.zone });
  box.append(el("h3", {}, `${z.zone} · ${z.kind} · ${z.count}`));
  const row = el("div", { class: "cards" });
  const cards = z.kind === "pile" ? z.cards.slice(-1) : z.cards;
  if (z.kind === "pile" && z.cards.length === 0 && z.backs > 0) row.append(el("div", { class: "card back" }));
  for (const c of cards) {
    const ccls = ["card"];
    if (targets.has(c.name)) ccls.push("target");
    if (selection.includes(c.name)) ccls.push("selected");
    const fields = c.fields.length ? el("div", { class: "fields" }, c.fields.map(([k, x]) => `${k} ${x}`).join(", ")) : "";
    const card = el("div", { class: ccls.join(" "), "data-value": c.name }, c.name, fields);
    card.addEventListener("click", (e) => { e.stopPropagation(); click(c.name); });
    hoverWhy(card, c.name, "card");
    row.append(card);
  }
  if (z.kind !== "pile") for (let i = 0; i < z.backs; i++) row.append(el("div", { class: "card back" }));
  if (z.kind === "pile") row.append(el("span", { class: "count" }, `${z.count}`));
  box.append(row);
  box.addEventListener("click", () => click(z.zone));
  hoverWhy(box, z.zone, "zone");
  return box;
}

// ---- why an illegal target is not legal, for this seat ----

function kindOf(value) {
  for (const b of info.boards) if (b.spaces.some((s) => s.name === value)) return "space:" + b.name;
  if (page.scene.zones.some((z) => z.zone === value)) return "zone";
  return "card";
}

// The text to ask `why` about when `value` is hovered: an action that could take the next
// click, with `value` in that place. Its own parameters are all written (the others as in that
// action); of the choices a sequence action makes inside, those before this one only, so that
// the answer is that choice's own (`place at=g1 take=a1`: why a1 may not be taken).
function guessText(value, kind) {
  const k = selection.length;
  for (const a of k ? candidates(selection) : page.legal) {
    const c = clicks(a);
    if (c.length <= k || kindOf(a.args[c[k]][1]) !== kind) continue;
    const i = c[k];
    // Where each argument's `name=value` lies in the text (labels of choices inside kept).
    const at = [];
    let from = 0;
    for (const [key, x] of a.args) {
      const word = `${key}=${x}`;
      const whole = (p) => (p === 0 || a.text[p - 1] === " ") && [undefined, " "].includes(a.text[p + word.length]);
      let p = a.text.indexOf(word, from);
      while (p >= 0 && !whole(p)) p = a.text.indexOf(word, p + 1);
      if (p < 0) return null;
      at.push([p, p + word.length]);
      from = p + word.length;
    }
    const last = Math.max(i, a.own - 1);
    return a.text.slice(0, at[i][0]) + `${a.args[i][0]}=${value}` + a.text.slice(at[i][1], at[last][1]);
  }
  return null;
}

function hoverWhy(node, value, kind) {
  node.addEventListener("mouseenter", async (e) => {
    if (!page || at !== null || targetsOf(selection).has(value) || page.view.over) return;
    const pos = { x: e.clientX, y: e.clientY };
    if (page.legal.length === 0) { showWhy(pos, `${page.view.actor} must act now, not ${seatName(seat)}`); return; }
    const text = guessText(value, kind);
    if (!text) return;
    let r = whyCache.get(text);
    if (!r) { r = await api(`/api/seat/${seat}/why?action=${encodeURIComponent(text)}`); whyCache.set(text, r); }
    if (r.error) { showWhy(pos, r.error.message); return; }
    if (r.legal) return;
    const where = r.at ? ` (line ${r.at.line}, column ${r.at.column}: <code>${escapeHtml(r.at.text)}</code>)` : "";
    showWhy(pos, `<code>${escapeHtml(text)}</code>: ${escapeHtml(r.reason)}${where}`, true);
  });
  node.addEventListener("mouseleave", hideWhy);
}

function escapeHtml(s) { return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }

function showWhy(pos, html, isHtml) {
  const w = $("why");
  if (isHtml) w.innerHTML = html; else w.textContent = html;
  w.style.left = pos.x + 12 + "px";
  w.style.top = pos.y + 12 + "px";
  w.hidden = false;
}
function hideWhy() { $("why").hidden = true; }

// ---- keeping up with the server ----

async function refresh(force) {
  const s = await api("/api/status");
  const rulesChanged = !status || s.rules !== status.rules;
  const matchChanged = force || rulesChanged || !status || s.match !== status.match;
  status = s;
  if (rulesChanged) { info = await api("/api/game"); whyCache.clear(); at = null; renderInfo(); }
  if (!matchChanged) return;
  whyCache.clear();
  if (!info.title || s.actor === "none") { page = null; render(); return; }
  // Whose view: the human who must act in a hot-seat game, else the seat chosen in "view
  // as", else the one human (or the first), else a spectator.
  const hs = humans();
  let want;
  if (hs.length > 1 && s.humans_to_act.length && !s.humans_to_act.includes(seat)) want = s.humans_to_act[0];
  else if (pinned !== undefined) want = pinned;
  else want = hs.length ? (hs.includes(seat) ? seat : hs[0]) : null;
  if (want !== seat && !shownOnce) seat = want; // nothing shown yet: nothing to cover
  if (want !== seat) { cover(want); return; }
  await loadPage();
}

let shownOnce = false; // whether a seat's page was shown since the page opened
let pinned; // the seat chosen in "view as" (undefined: none chosen)

async function loadPage() {
  const q = at === null ? "" : `?at=${at}`;
  const p = await api(`/api/seat/${seat === null ? "spectator" : seat}${q}`);
  if (p.error) { showTrouble(p.error.message); page = null; } else { page = p; shownOnce = true; }
  render();
}

function cover(next) {
  page = null;
  render();
  $("covertext").textContent = next === null ? "Show the spectator's view" : `Pass to ${seatName(next)}`;
  $("cover").hidden = false;
  $("reveal").onclick = async () => {
    $("cover").hidden = true;
    seat = next;
    $("seat").value = seat === null ? "spectator" : String(seat);
    selection = [];
    await loadPage();
  };
}

// ---- controls ----

$("newtoggle").onclick = () => { $("newgame").hidden = !$("newgame").hidden; };
$("players").onchange = renderHumans;
$("newgame").onsubmit = async (e) => {
  e.preventDefault();
  const players = Number($("players").value);
  const hs = [...document.querySelectorAll("input.human")].map((c) => c.checked);
  const setup = { players, variant: $("variant").value || null, seed: Number($("seed").value || 0),
    humans: hs.slice(0, players), agent: $("agent").value };
  const r = await api("/api/new", setup);
  if (r.error) { showTrouble(r.error.message); return; }
  $("newgame").hidden = true;
  at = null;
  info = await api("/api/game");
  pinned = undefined;
  const first = setup.humans.indexOf(true);
  seat = first < 0 ? null : first;
  renderInfo();
  await refresh(true);
};
$("seat").onchange = () => {
  const v = $("seat").value;
  const next = v === "spectator" ? null : Number(v);
  pinned = next;
  cover(next);
};
$("undo").onclick = async () => {
  const r = await api("/api/undo", {});
  if (r.error) showTrouble(r.error.message);
  at = null;
  await refresh(true);
};
$("save").onclick = async () => {
  const r = await api("/api/save");
  if (r.error) { showTrouble(r.error.message); return; }
  const a = el("a", { href: URL.createObjectURL(new Blob([r.data], { type: "text/plain" })), download: "match.ron" });
  a.click();
};
$("load").onchange = async () => {
  const f = $("load").files[0];
  if (!f) return;
  const r = await api("/api/load", { data: await f.text() });
  if (r.error) showTrouble(r.error.message);
  info = await api("/api/game");
  renderInfo();
  at = null;
  await refresh(true);
};
$("slider").oninput = async () => {
  const n = Number($("slider").value);
  at = page && n >= page.decisions ? null : n;
  selection = [];
  await loadPage();
};

async function tick() {
  try { await refresh(false); } catch (e) { /* the server restarts or is gone; try again */ }
  setTimeout(tick, 400);
}
tick();
