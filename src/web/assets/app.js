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
    for (const b of info.boards) for (const s of b.spaces) { out.add(s.name); if (s.column) out.add(s.column); }
    for (const z of page.scene.zones) {
      out.add(z.zone);
      for (const c of z.kind === "pile" || z.kind === "deck" ? z.cards.slice(-1) : z.cards) out.add(c.name);
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

// A space is a target when its name is, or the value of its column (a disc dropped into a
// column: a click on any space of it).
function isTarget(s, targets) { return targets.has(s.name) || (s.column !== undefined && targets.has(s.column)); }

// What a click on a space stands for: its name, or its column's value when that is what the
// next click may be.
function pickValue(s) {
  const t = targetsOf(selection);
  if (t.has(s.name) || s.column === undefined) return s.name;
  return t.has(s.column) || targetsOf([]).has(s.column) ? s.column : s.name;
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
  $("status").replaceChildren(`${line} · you are `,
    ...(seat === null ? [] : [el("span", { class: "swatch seat" + seat, title: "your pieces' colour" }, "●"), " "]), seatName(seat));
  $("outcome").textContent = line;
  // Boards.
  // Once the game is over, the spaces of the lines its winner holds.
  const won = new Set((page.scene.won || []).map(([b, sp]) => `${b}:${sp}`));
  info.boards.forEach((b, bi) => boards.append(drawBoard(b, page.scene.boards[bi] || [], targets,
    (i) => won.has(`${bi}:${i}`))));
  fitTexts(boards);
  // Zones.
  // The seat's own zones first (its hand), then those holding a target, then the rest, each
  // group in the rules' order.
  const rank = (z) => seat !== null && z.owner === seat ? 0
    : targets.has(z.zone) || z.cards.some((c) => cardTarget(z, c, targets)) ? 1 : 2;
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

// The unit of a board (pixels between neighbours): larger when some space holds many things
// or a long label, so that each keeps a readable line (the page scales the board down to its
// room anyway), at most twice the usual.
function unitOf(b, spaces) {
  const room = b.shape === "hex" ? 0.72 : 0.9; // of a unit, for one line
  let most = 0, widest = 0;
  for (const ts of spaces) {
    const drawn = (ts || []).filter((t) => t.kind !== "note");
    most = Math.max(most, drawn.length);
    for (const t of drawn) {
      const small = drawn.length > 1;
      const w = tokenText(t).length * (small ? 6 : 8.5) + (t.seat !== null && t.seat !== undefined ? (small ? 12 : 8) : 0);
      widest = Math.max(widest, w);
    }
  }
  const u = most <= 2 ? UNIT : most <= 6 ? UNIT * 1.5 : UNIT * 2;
  return Math.min(UNIT * 2, Math.max(u, widest / room));
}

// The text a token shows: its label, its count when it stands for several (`block ×3`), a
// back as a filled mark.
function tokenText(t) {
  const label = t.kind === "back" ? "▮" : t.label;
  return t.count > 1 ? `${label} ×${t.count}` : label;
}

function drawBoard(b, spaces, targets, isWon) {
  const u = unitOf(b, spaces);
  const xs = b.spaces.map((s) => s.x), ys = b.spaces.map((s) => s.y);
  const minx = Math.min(...xs), maxx = Math.max(...xs), miny = Math.min(...ys), maxy = Math.max(...ys);
  const pad = u * 0.7;
  const px = (x) => (x - minx) * u + pad, py = (y) => (y - miny) * u + pad;
  const w = (maxx - minx) * u + 2 * pad, h = (maxy - miny) * u + 2 * pad;
  // Scaled down to the space beside the side panel (CSS max-width), never under it.
  const g = svg("svg", { class: "board", "data-board": b.name, width: w, height: h, viewBox: `0 0 ${w} ${h}` });
  const hex = b.shape === "hex";
  // A hexagon standing on a corner, its neighbours' centres 1 unit away (a small gap left).
  const hexagon = (cx, cy) => range(0, 6).map((k) => {
    const a = Math.PI / 3 * k + Math.PI / 6, r = u / Math.sqrt(3) * 0.97;
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
    if (isTarget(s, targets)) cls.push("target");
    if (selection.includes(s.name)) cls.push("selected");
    if (isWon(i)) cls.push("won");
    if (s.dark) cls.push("dark");
    const grp = svg("g", { class: cls.join(" "), "data-value": s.name, "data-board": b.name });
    const cx = px(s.x), cy = py(s.y);
    // The room inside the space for what lies there: below its name, inside its shape.
    let room;
    if (hex) {
      grp.append(svg("polygon", { class: "cell", points: hexagon(cx, cy) }));
      room = { x: cx - u * 0.36, y: cy - u * 0.2, w: u * 0.72, h: u * 0.5 };
    } else if (b.cells) {
      grp.append(svg("rect", { x: cx - u / 2, y: cy - u / 2, width: u, height: u }));
      room = { x: cx - u / 2 + 3, y: cy - u / 2 + 12, w: u - 6, h: u - 15 };
    } else {
      grp.append(svg("circle", { class: "spot", cx, cy, r: u * 0.36 }));
      // A point's text may reach past its circle, within its own square of the board.
      room = { x: cx - u * 0.45, y: cy - u * 0.25, w: u * 0.9, h: u * 0.5 };
    }
    const label = svg("text", { class: "label", x: cx - u / 2 + 3, y: cy - u / 2 + 10 });
    if (hex) { label.setAttribute("x", cx - u * 0.12); label.setAttribute("y", cy - u * 0.3); }
    else if (!b.cells) { label.setAttribute("x", cx - u * 0.3); label.setAttribute("y", cy - u * 0.38); }
    label.textContent = s.name;
    grp.append(label);
    const all = spaces[i] || [];
    const tokens = all.filter((t) => t.kind !== "note");
    drawTokens(grp, tokens, room, cx, cy);
    // The whole of what lies there, fixed values included, in the tooltip.
    const title = svg("title", {});
    title.textContent = [s.name, ...all.map((t) => t.text)].join("\n");
    grp.append(title);
    grp.addEventListener("click", () => click(pickValue(s)));
    hoverWhy(grp, s.name, "space:" + b.name);
    g.append(grp);
  });
  return g;
}

// What lies on a space, inside its room: one token alone large (a seat's disc with its label
// inside, or the label), several as lines of a small disc and a label (two columns when they
// do not fit in one), the last line `+N` when even those are too few. Every text is clipped to
// its width with an ellipsis once the board is on the page (fitTexts).
function drawTokens(grp, tokens, room, cx, cy) {
  const token = (t) => svg("g", { class: "token " + t.kind, "data-value": t.value,
    "data-seat": t.seat === null || t.seat === undefined ? null : t.seat });
  const text = (x, y, s, fit, cls) => {
    const e = svg("text", { class: cls || "tlabel", x, y, "data-fit": fit.toFixed(1) });
    e.textContent = s;
    return e;
  };
  // A label in the colour the rules' `present` section gives its value.
  const paint = (e, t) => { if (t.colour) e.style.fill = t.colour; return e; };
  if (tokens.length === 1) {
    const t = tokens[0], tg = token(t);
    const y = room.y + room.h / 2;
    if (t.seat !== null && t.seat !== undefined) {
      const r = Math.min(room.w, room.h) * 0.46;
      tg.append(svg("circle", { class: "disc seat" + t.seat, cx, cy: y, r }));
      const s = tokenText(t);
      if (s) tg.append(paint(text(cx, y, s, r * 1.7, "tlabel ondisc"), t));
    } else {
      tg.append(paint(text(cx, y, tokenText(t), room.w), t));
    }
    grp.append(tg);
    return;
  }
  const line = 13;
  const rows = Math.max(1, Math.floor(room.h / line));
  const cols = tokens.length > rows ? 2 : 1;
  const fits = rows * cols;
  const shown = tokens.length > fits ? tokens.slice(0, fits - 1) : tokens;
  const colw = room.w / cols;
  const used = Math.min(rows, Math.ceil((shown.length + (tokens.length > fits ? 1 : 0)) / cols));
  const top = room.y + (room.h - used * line) / 2 + line / 2;
  const at = (k) => [room.x + (k % cols) * colw, top + Math.floor(k / cols) * line];
  shown.forEach((t, k) => {
    const [x, y] = at(k), tg = token(t);
    let dx = 0;
    if (t.seat !== null && t.seat !== undefined) {
      tg.append(svg("circle", { class: "disc seat" + t.seat, cx: x + 5, cy: y, r: 5 }));
      dx = 12;
    }
    const e = paint(text(x + dx, y, tokenText(t), colw - dx - 2, "tlabel small"), t);
    tg.append(e);
    grp.append(tg);
  });
  if (tokens.length > fits) {
    const [x, y] = at(fits - 1);
    grp.append(text(x, y, `+${tokens.length - shown.length}`, colw - 2, "tlabel small more"));
  }
}

// Clips each text drawn on a board to its width (data-fit, in the board's own units), with an
// ellipsis: the whole text is in the space's tooltip.
function fitTexts(root) {
  for (const e of root.querySelectorAll("text[data-fit]")) {
    const fit = Number(e.dataset.fit);
    const full = e.textContent;
    if (e.getComputedTextLength() <= fit) continue;
    let n = full.length - 1;
    while (n > 0) {
      e.textContent = full.slice(0, n) + "…";
      if (e.getComputedTextLength() <= fit) break;
      n--;
    }
    if (n === 0) e.textContent = "";
  }
}

// Whether a card is marked as a target. A click stands for a card's name; when cards of the
// seat's own zones bear that name too (each player's card "5"), only those are marked, as the
// seat's actions take its own cards far more often than another's of the same name.
function cardTarget(z, c, targets) {
  if (!targets.has(c.name)) return false;
  if (seat === null || z.owner === seat) return true;
  return !page.scene.zones.some((o) => o.owner === seat && o.cards.some((x) => x.name === c.name));
}

function drawZone(z, targets) {
  const cls = ["zone", z.kind];
  if (targets.has(z.zone)) cls.push("target");
  const box = el("div", { class: cls.join(" "), "data-zone": z.zone, "data-value": z.zone });
  box.append(el("h3", {}, `${z.zone} · ${z.kind} · ${z.count}`));
  const row = el("div", { class: "cards" });
  // A deck is drawn as a pile: its top card (or back) and its count.
  const pile = z.kind === "pile" || z.kind === "deck";
  const cards = pile ? z.cards.slice(-1) : z.cards;
  if (pile && z.cards.length === 0 && z.backs > 0) row.append(el("div", { class: "card back" }));
  for (const c of cards) {
    const ccls = ["card"];
    if (cardTarget(z, c, targets)) ccls.push("target");
    if (selection.includes(c.name)) ccls.push("selected");
    const fields = c.fields.length ? el("div", { class: "fields" }, c.fields.map(([k, x]) => `${k} ${x}`).join(", ")) : "";
    const card = el("div", { class: ccls.join(" "), "data-value": c.name }, c.name, fields);
    card.addEventListener("click", (e) => { e.stopPropagation(); click(c.name); });
    hoverWhy(card, c.name, "card");
    row.append(card);
  }
  if (!pile) for (let i = 0; i < z.backs; i++) row.append(el("div", { class: "card back" }));
  if (pile) row.append(el("span", { class: "count" }, `${z.count}`));
  box.append(row);
  box.addEventListener("click", () => click(z.zone));
  hoverWhy(box, z.zone, "zone");
  return box;
}

// ---- why an illegal target is not legal, for this seat ----

function kindOf(value) {
  for (const b of info.boards) if (b.spaces.some((s) => s.name === value || s.column === value)) return "space:" + b.name;
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
    // A column's value stands for the spaces of that column.
    const col = kind.startsWith("space:") && columnOf(value);
    const v = col && !shownSpace(a.args[i][1]) ? col : value;
    return a.text.slice(0, at[i][0]) + `${a.args[i][0]}=${v}` + a.text.slice(at[i][1], at[last][1]);
  }
  return null;
}

function columnOf(name) {
  for (const b of info.boards) for (const s of b.spaces) if (s.name === name) return s.column;
  return undefined;
}
function shownSpace(value) { return info.boards.some((b) => b.spaces.some((s) => s.name === value)); }

function hoverWhy(node, value, kind) {
  node.addEventListener("mouseenter", async (e) => {
    const col = kind.startsWith("space:") ? columnOf(value) : undefined;
    if (!page || at !== null || targetsOf(selection).has(value) || (col !== undefined && targetsOf(selection).has(col)) || page.view.over) return;
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
  try { await refresh(false); } catch (e) {
    // The server restarts or is gone: try again. Anything else is a fault of the page.
    if (!(e instanceof TypeError && /fetch/i.test(e.message))) console.error(e);
  }
  setTimeout(tick, 400);
}
tick();
