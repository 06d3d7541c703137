// sow oracle: the page of `sow serve`. Plain JavaScript, no build step; every
// rule and value comes from the server's JSON API.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
// One id per page: a new search from this page cancels its previous one.
const CLIENT = "p" + Math.random().toString(36).slice(2, 12);

const ui = {
  history: [], // [{position, move}]: move is the one that led to position
  cur: 0,
  show: null, // /api/show model of the current position
  values: null, // /api/values model of the current position
  valuesByPosition: new Map(), // position -> value for the mover (graph)
  marks: new Map(), // ply index -> analyze mark
  analysis: null,
  picked: null, // Kiothi play: the pit whose counts are offered
  opening: null, // Kiothi opening builder: {lifted: [], targets: []}
  searchToken: 0,
  stopped: false, // the stop button was pressed for this position
};

// ---------------------------------------------------------------- API

async function api(path, params, body) {
  const qs = new URLSearchParams(params || {}).toString();
  const res = await fetch("/api/" + path + (qs ? "?" + qs : ""), body === undefined
    ? {} : { method: "POST", body, headers: { "Content-Type": "text/plain" } });
  const data = await res.json();
  if (!res.ok) {
    const e = new Error((data.error && data.error.message) || res.statusText);
    e.detail = data.error;
    throw e;
  }
  return data;
}

function showError(e) {
  $("error").textContent = e ? "error: " + e.message : "";
}

// ---------------------------------------------------------------- geometry

function geometry(show) {
  const n = show.pits.length;
  const w = n / 2;
  return { n, w, south: (i) => i < w, owner: (i) => (i < w ? "S" : "N") };
}

function signed(v) {
  return v > 0 ? "+" + v : String(v);
}

function isKpe() {
  return ui.show && ui.show.game === "kpe";
}

function isOpening() {
  return ui.show && ui.show.game === "kiothi" && ui.show.phase === "Opening";
}

// ---------------------------------------------------------------- board

function el(name, attrs, text) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// The best value of each pit's moves (Kiothi: over its counts) for the mover.
function pitValues() {
  const out = new Map();
  if (!ui.values || isOpening()) return out;
  for (const mv of ui.values.moves) {
    const pit = parseInt(mv.move, 10);
    if (!out.has(pit) || out.get(pit) < mv.value) out.set(pit, mv.value);
  }
  return out;
}

// Drawn as the report diagrams: North's row on top, right to left as South
// sees it, pit i of South under pit (2w-1-i) of North; counts, pit numbers,
// Kpé marks (x) and Kiothi protection (*), captures or prisons on the right.
function drawBoard() {
  const s = ui.show;
  const g = geometry(s);
  const cell = g.w > 6 ? 60 : 72;
  const left = 70;
  const width = left + cell * g.w + 150;
  const svg = el("svg", { xmlns: SVGNS, width, height: 260, viewBox: `0 0 ${width} 260`,
    "font-family": "sans-serif", "font-size": 13, id: "board-svg" });
  svg.appendChild(el("rect", { width: "100%", height: "100%", fill: "white" }));
  const values = pitValues();
  const bestValue = ui.values && ui.values.moves.length ? ui.values.moves[0].value : null;
  const legalPits = new Set((s.moves || []).map((m) => parseInt(m, 10)));
  const protectedPits = new Set(s.protected || []);
  for (let i = 0; i < g.n; i++) {
    const south = g.south(i);
    const col = south ? i : g.n - 1 - i;
    const x = left + cell * col;
    const y = south ? 140 : 60;
    const mine = g.owner(i) === s.side;
    const lifted = ui.opening && ui.opening.lifted.includes(i);
    const grp = el("g", { class: "pit" + (mine && !s.over ? "" : " idle"), "data-pit": i });
    let stroke = "#495057", sw = 1;
    if (lifted || ui.picked === i) { stroke = "#c92a2a"; sw = 4; }
    else if (protectedPits.has(i)) { stroke = "#1c7ed6"; sw = 3; }
    grp.appendChild(el("rect", { x, y, width: cell - 8, height: 50, rx: 20, fill: "#f8f0e3",
      stroke, "stroke-width": sw, "stroke-dasharray": protectedPits.has(i) && !lifted ? "5 3" : "none" }));
    const cx = x + (cell - 8) / 2;
    grp.appendChild(el("text", { x: cx, y: y + 31, "text-anchor": "middle", "font-size": 18,
      "data-count": i }, String(s.pits[i]) + (protectedPits.has(i) ? "*" : "")));
    grp.appendChild(el("text", { x: cx, y: south ? y + 64 : y - 6, "text-anchor": "middle",
      fill: "#868e96" }, "pit " + i));
    if (s.marks) {
      const row = south ? s.marks[0] : s.marks[1];
      const k = south ? i : i - g.w;
      if (row[k] === "x") {
        grp.appendChild(el("text", { x: x + 4, y: y + 14, fill: "#e8590c", "font-weight": "bold" }, "x"));
      }
    }
    const placed = ui.opening ? ui.opening.targets.filter((t) => t === i).length : 0;
    if (placed) {
      grp.appendChild(el("text", { x: x + cell - 12, y: y + 12, "text-anchor": "middle",
        fill: "#2b8a3e", "font-weight": "bold" }, "+" + placed));
    }
    if (mine && values.has(i)) {
      const v = values.get(i);
      grp.appendChild(el("text", { x: cx, y: south ? y + 82 : y - 22, "text-anchor": "middle",
        "font-weight": "bold", fill: v === bestValue ? "#2b8a3e" : "#c92a2a", "data-value": i },
        signed(v)));
    } else if (mine && isKpe() && legalPits.has(i) && !ui.values) {
      grp.appendChild(el("text", { x: cx, y: south ? y + 82 : y - 22, "text-anchor": "middle",
        fill: "#868e96" }, "…"));
    }
    grp.addEventListener("click", () => clickPit(i));
    svg.appendChild(grp);
  }
  const word = s.game === "kpe" ? "captured" : "prison";
  const took = s.game === "kpe" ? s.captured : s.prisons || s.captured;
  const px = left + cell * g.w + 10;
  svg.appendChild(el("text", { x: 10, y: 90 }, "North"));
  svg.appendChild(el("text", { x: 10, y: 170 }, "South"));
  svg.appendChild(el("text", { x: px, y: 90, id: "took-N" }, `${word} ${took[1]}`));
  svg.appendChild(el("text", { x: px, y: 170, id: "took-S" }, `${word} ${took[0]}`));
  if (s.unlocked) {
    svg.appendChild(el("text", { x: px, y: 106, fill: "#868e96" }, s.unlocked[1] ? "unlocked" : "locked"));
    svg.appendChild(el("text", { x: px, y: 186, fill: "#868e96" }, s.unlocked[0] ? "unlocked" : "locked"));
  }
  svg.appendChild(el("text", { x: 10, y: 250, fill: "#495057", id: "to-move" },
    (s.side === "S" ? "South" : "North") + " to move" + (s.phase ? ` (${s.phase.toLowerCase()})` : "")));
  $("board").replaceChildren(svg);
}

// ---------------------------------------------------------------- status and values

function sideName(side) {
  return side === "S" ? "South" : "North";
}

function drawStatus() {
  const s = ui.show;
  let text;
  if (s.over) {
    const f = s.final;
    const w = s.winner ? sideName(s.winner) + " wins" : "draw";
    text = `game over: ${w}, ${f[0]} to ${f[1]} (South to North)`;
  } else {
    text = `${sideName(s.side)} to move`;
    const v = ui.values;
    if (v && v.moves.length) {
      text += `: value ${signed(v.moves[0].value)} for ${sideName(s.side)}` +
        (v.exact ? " (exact)" : ` (estimate, depth ${v.depth})`);
    }
  }
  $("status").textContent = text;
}

function drawValues() {
  const box = $("values");
  box.replaceChildren();
  const v = ui.values;
  if (ui.show.over) return;
  if (isOpening()) {
    const p = document.createElement("p");
    p.textContent = `${ui.show.move_count} opening moves: pick two pits to lift, then click a target pit for each warrior; or type the move. The best moves found (from the opening book where it has the position):`;
    box.appendChild(p);
  }
  if (!v) {
    box.textContent = "valuing…";
    return;
  }
  const table = document.createElement("table");
  table.id = "values-table";
  table.innerHTML = "<tr><th>move</th><th>value</th><th></th></tr>";
  const best = v.moves.length ? v.moves[0].value : null;
  // An opening lists the book's moves or the search's candidates: the best dozen are shown.
  for (const m of isOpening() ? v.moves.slice(0, 12) : v.moves) {
    const tr = document.createElement("tr");
    if (m.value === best) tr.className = "best";
    tr.dataset.move = m.move;
    const td1 = document.createElement("td");
    td1.textContent = m.move;
    const td2 = document.createElement("td");
    td2.textContent = signed(m.value);
    td2.className = "value";
    const td3 = document.createElement("td");
    const b = document.createElement("button");
    b.textContent = "play";
    b.addEventListener("click", () => playMove(m.move));
    td3.appendChild(b);
    tr.append(td1, td2, td3);
    table.appendChild(tr);
  }
  box.appendChild(table);
  const note = document.createElement("p");
  note.className = "muted";
  note.id = "values-note";
  note.textContent = v.book ? `the opening book's ${v.moves.length} moves here, book depth ${v.depth}`
    : !v.complete ? `estimates of ${v.moves.length} candidate moves, search depth ${v.depth}`
    : v.exact ? "exact values" + (v.depth === null ? "" : ` (proved by a search of depth ${v.depth})`)
    : `estimates: search depth ${v.depth} after each move` + (v.interrupted ? " (the next depth was cut short)" : "");
  box.appendChild(note);
}

// ---------------------------------------------------------------- moves

function clickPit(i) {
  const s = ui.show;
  if (s.over || geometry(s).owner(i) !== s.side) {
    if (ui.opening && ui.opening.lifted.length === 2) placeTarget(i);
    return;
  }
  if (isKpe()) {
    if ((s.moves || []).includes(String(i))) playMove(String(i));
    return;
  }
  if (isOpening()) {
    const o = ui.opening;
    if (o.lifted.length < 2 && !o.lifted.includes(i) && s.pits[i] > 0) {
      o.lifted.push(i);
      drawOpening();
      drawBoard();
    } else if (o.lifted.length === 2) {
      placeTarget(i);
    }
    return;
  }
  ui.picked = i;
  drawChooser();
  drawBoard();
}

function placeTarget(i) {
  const o = ui.opening;
  const total = o.lifted.reduce((a, p) => a + ui.show.pits[p], 0);
  if (o.targets.length < total) {
    o.targets.push(i);
    drawOpening();
    drawBoard();
  }
}

// Kiothi play: the counts that may be lifted from the picked pit, each with
// its value.
function drawChooser() {
  const box = $("chooser");
  box.replaceChildren();
  if (ui.picked === null || isKpe() || isOpening()) return;
  const prefix = ui.picked + "x";
  const moves = (ui.show.moves || []).filter((m) => m.startsWith(prefix));
  const label = document.createElement("span");
  label.textContent = moves.length ? `pit ${ui.picked}: lift` : `pit ${ui.picked}: no legal move`;
  box.appendChild(label);
  const values = new Map((ui.values ? ui.values.moves : []).map((m) => [m.move, m.value]));
  for (const m of moves) {
    const b = document.createElement("button");
    b.className = "choice";
    b.dataset.move = m;
    const v = values.get(m);
    b.textContent = m.slice(prefix.length) + (v === undefined ? "" : ` (${signed(v)})`);
    b.addEventListener("click", () => playMove(m));
    box.appendChild(b);
  }
}

function drawOpening() {
  const box = $("opening");
  box.replaceChildren();
  if (!isOpening()) return;
  const o = ui.opening;
  const total = o.lifted.reduce((a, p) => a + ui.show.pits[p], 0);
  const span = document.createElement("span");
  span.className = "placed";
  span.id = "opening-move";
  span.textContent = o.lifted.length < 2
    ? `lift: ${o.lifted.join("+") || "(click two of your pits)"}`
    : `${o.lifted.join("+")}>${[...o.targets].sort((a, b) => a - b).join(",")}  (${o.targets.length} of ${total} placed)`;
  const play = document.createElement("button");
  play.textContent = "play";
  play.id = "opening-play";
  play.disabled = !(o.lifted.length === 2 && o.targets.length === total);
  play.addEventListener("click", () => playMove(`${o.lifted[0]}+${o.lifted[1]}>${o.targets.join(",")}`));
  const reset = document.createElement("button");
  reset.textContent = "reset";
  reset.addEventListener("click", () => { ui.opening = { lifted: [], targets: [] }; drawOpening(); drawBoard(); });
  box.append(span, play, reset);
}

async function playMove(move) {
  showError(null);
  const from = ui.history[ui.cur].position;
  try {
    const r = await api("apply", { position: from, moves: move });
    ui.history = ui.history.slice(0, ui.cur + 1);
    ui.history.push({ position: r.final, move: r.moves[0] });
    ui.cur += 1;
    ui.analysis = null;
    ui.marks.clear();
    $("analysis-summary").textContent = "";
    await setPosition();
  } catch (e) {
    showError(e);
  }
}

// ---------------------------------------------------------------- the current position

async function setPosition() {
  const position = ui.history[ui.cur].position;
  stopSearch();
  ui.values = null;
  ui.picked = null;
  ui.stopped = false;
  ui.show = await api("show", { position });
  ui.opening = isOpening() ? { lifted: [], targets: [] } : null;
  $("position").value = ui.show.position;
  const url = new URL(window.location);
  url.searchParams.set("position", ui.show.position);
  window.history.replaceState(null, "", url);
  selectGame();
  redraw();
  fillEditor();
  const token = ++ui.searchToken;
  await valueMoves(token);
  if (token === ui.searchToken) await oracleTurn(token);
}

function redraw() {
  drawBoard();
  drawStatus();
  drawValues();
  drawChooser();
  drawOpening();
  drawMoveList();
  drawGraph();
}

// Kpé: exact values at once. Kiothi: one search per depth, each shown as it
// completes, until the think time, an exact result, or the stop button.
async function valueMoves(token) {
  const s = ui.show;
  if (s.over) return;
  const position = s.position;
  document.body.dataset.searching = "1";
  try {
    if (s.game === "kpe") {
      ui.values = await api("values", { position, client: CLIENT });
    } else {
      // One request per depth (plies from the position), each shown as it
      // completes: the values deepen on the page as the search does.
      const deadline = performance.now() + thinkSeconds() * 1000;
      const first = isOpening() ? 2 : 1;
      for (let depth = first; depth <= 64; depth++) {
        const left = (deadline - performance.now()) / 1000;
        if (left <= 0.05 || token !== ui.searchToken || ui.stopped) break;
        const v = await api("values", { position, depth, time: left.toFixed(2), client: CLIENT });
        if (token !== ui.searchToken) return;
        if (!ui.values || v.depth >= ui.values.depth) ui.values = v;
        redraw();
        if (v.exact || v.interrupted || v.depth < depth) break;
      }
    }
  } catch (e) {
    if (!(e.detail && e.detail.kind === "cancelled")) showError(e);
  }
  if (token !== ui.searchToken) return;
  delete document.body.dataset.searching;
  if (ui.values && ui.values.moves.length) {
    ui.valuesByPosition.set(position, ui.values.moves[0].value);
  }
  redraw();
}

function thinkSeconds() {
  const t = parseFloat($("think").value);
  return Number.isFinite(t) && t > 0 ? Math.min(t, 30) : 3;
}

function stopSearch() {
  ui.searchToken++;
  fetch("/api/stop?client=" + CLIENT, { method: "POST" }).catch(() => {});
}

async function oracleTurn(token) {
  const side = $("oracle-side").value;
  const s = ui.show;
  if (!side || s.over || s.side !== side) return;
  try {
    const r = await api("play", { position: s.position, level: $("level").value,
      time: thinkSeconds(), client: CLIENT, seed: ui.cur + 1 });
    if (token === ui.searchToken && r.move) await playMove(r.move);
  } catch (e) {
    if (!(e.detail && e.detail.kind === "cancelled")) showError(e);
  }
}

// ---------------------------------------------------------------- move list and graph

function drawMoveList() {
  const ol = $("movelist");
  ol.replaceChildren();
  for (let i = 1; i < ui.history.length; i++) {
    const li = document.createElement("li");
    li.textContent = ui.history[i].move;
    if (ui.marks.has(i)) {
      const m = document.createElement("span");
      m.className = "mark";
      m.textContent = " " + ui.marks.get(i);
      li.appendChild(m);
    }
    if (i === ui.cur) li.className = "current";
    li.addEventListener("click", () => { ui.cur = i; setPosition(); });
    ol.appendChild(li);
  }
}

// The final margin for South that each position's value promises
// (captures so far plus the value), after every ply known: from the
// analysis when there is one, else from the values seen while playing.
function graphPoints() {
  if (ui.analysis) {
    return ui.analysis.plies.map((p, i) => [i, p.south_margin]);
  }
  const pts = [];
  ui.history.forEach((h, i) => {
    if (!ui.valuesByPosition.has(h.position)) return;
    const v = ui.valuesByPosition.get(h.position);
    const f = h.position.split(" ");
    const took = parseInt(f[f.length - 2], 10) - parseInt(f[f.length - 1], 10);
    pts.push([i, took + (f[2] === "S" ? v : -v)]);
  });
  return pts;
}

function drawGraph() {
  const pts = graphPoints();
  const box = $("graph");
  box.replaceChildren();
  if (pts.length < 2) return;
  const W = 360, H = 140, pad = 24;
  const maxAbs = Math.max(2, ...pts.map((p) => Math.abs(p[1])));
  const maxX = Math.max(1, ...pts.map((p) => p[0]));
  const X = (x) => pad + (W - 2 * pad) * x / maxX;
  const Y = (y) => H / 2 - (H / 2 - 12) * y / maxAbs;
  const svg = el("svg", { width: W, height: H, id: "value-graph", "font-size": 10, "font-family": "sans-serif" });
  svg.appendChild(el("rect", { width: W, height: H, fill: "white", stroke: "#dee2e6" }));
  svg.appendChild(el("line", { x1: pad, x2: W - pad, y1: Y(0), y2: Y(0), stroke: "#adb5bd" }));
  svg.appendChild(el("polyline", { fill: "none", stroke: "#1c7ed6", "stroke-width": 2,
    points: pts.map((p) => `${X(p[0])},${Y(p[1])}`).join(" ") }));
  svg.appendChild(el("text", { x: 2, y: 12 }, signed(maxAbs) + " South"));
  svg.appendChild(el("text", { x: 2, y: H - 3 }, signed(-maxAbs)));
  svg.appendChild(el("line", { x1: X(ui.cur), x2: X(ui.cur), y1: 4, y2: H - 4, stroke: "#fab005" }));
  box.appendChild(svg);
}

async function analyzeGame() {
  showError(null);
  const game = [ui.history[0].position, ...ui.history.slice(1).map((h) => h.move)].join("\n");
  try {
    const a = await api("analyze", { time: Math.min(thinkSeconds(), 1), client: CLIENT }, game);
    ui.analysis = a;
    ui.marks.clear();
    a.plies.forEach((p, i) => { if (p.mark) ui.marks.set(i + 1, p.mark); });
    const who = (k) => {
      const p = a.players[k];
      const keep = p.value_keeping === null ? "-" : Math.round(100 * p.value_keeping) + "%";
      const loss = p.mean_loss === null ? "-" : p.mean_loss.toFixed(2);
      return `${sideName(k)}: ${keep} value-keeping, mean loss ${loss}`;
    };
    $("analysis-summary").textContent = `${who("S")}; ${who("N")}; ` +
      (a.decided_at === null ? "result not proven decided" : `decided at ply ${a.decided_at}`) + ` (${a.method})`;
    redraw();
  } catch (e) {
    showError(e);
  }
}

// ---------------------------------------------------------------- position editor

// The editor writes notation from its fields; the server refuses an
// impossible position with the CLI's message.
function fillEditor() {
  const s = ui.show;
  const f = $("editor");
  f.replaceChildren();
  const g = geometry(s);
  const add = (html) => { const d = document.createElement("div"); d.innerHTML = html; f.appendChild(d); return d; };
  const tag = s.game === "kpe" ? (s.variant === "4x6" ? "kpe" : "kpe:" + s.variant) : "kiothi";
  add(`<label>game <input name="tag" value="${tag}" size="8"></label>`);
  let rows = "";
  for (const south of [false, true]) {
    let cells = "";
    for (let c = 0; c < g.w; c++) {
      const i = south ? c : g.n - 1 - c;
      const flag = s.game === "kpe"
        ? `<input type="checkbox" name="mark${i}" title="mark of pit ${i}" ${(south ? s.marks[0][i] : s.marks[1][i - g.w]) === "x" ? "checked" : ""}>`
        : `<input type="checkbox" name="prot${i}" title="pit ${i} protected" ${(s.protected || []).includes(i) ? "checked" : ""}>`;
      cells += `<span><input type="number" min="0" max="99" name="pit${i}" value="${s.pits[i]}" title="pit ${i}">${flag}</span>`;
    }
    rows += `<div class="pits" style="grid-template-columns: repeat(${g.w}, auto)">${cells}</div>`;
  }
  add(`<div class="muted">North (top, right to left) and South; checkbox: ${s.game === "kpe" ? "mark" : "protected"}</div>${rows}`);
  const took = s.game === "kpe" ? s.captured : s.prisons;
  add(`<label>to move <select name="side"><option value="S" ${s.side === "S" ? "selected" : ""}>South</option><option value="N" ${s.side === "N" ? "selected" : ""}>North</option></select></label>` +
    (s.game === "kiothi" ? ` <label>phase <select name="phase"><option ${s.phase === "Opening" ? "selected" : ""}>opening</option><option ${s.phase === "Play" ? "selected" : ""}>play</option></select></label>` : "") +
    ` <label>South ${s.game === "kpe" ? "captured" : "prison"} <input type="number" min="0" name="tookS" value="${took[0]}"></label>` +
    ` <label>North <input type="number" min="0" name="tookN" value="${took[1]}"></label>`);
  const d = add(`<button type="submit" id="editor-set">set position</button>`);
  d.className = "row";
}

function editorNotation() {
  const f = $("editor");
  const val = (n) => f.elements[n].value.trim();
  const tag = val("tag");
  const kpe = tag.startsWith("kpe");
  const n = ui.show.pits.length;
  const w = n / 2;
  const counts = [];
  for (let i = 0; i < n; i++) {
    const prot = !kpe && f.elements["prot" + i].checked ? "*" : "";
    counts.push(val("pit" + i) + prot);
  }
  const parts = [tag, counts.join(","), val("side")];
  if (kpe) {
    const marks = (from) => Array.from({ length: w }, (_, k) => (f.elements["mark" + (from + k)].checked ? "x" : ".")).join("");
    parts.push(marks(0), marks(w));
  } else {
    parts.push(val("phase"));
  }
  parts.push(val("tookS"), val("tookN"));
  return parts.join(" ");
}

// ---------------------------------------------------------------- games, undo, wiring

async function loadGames() {
  const g = await api("games");
  const sel = $("game");
  sel.replaceChildren();
  for (const o of g.games) {
    const opt = document.createElement("option");
    opt.value = o.start;
    opt.textContent = `${o.start} (${o.values})`;
    sel.appendChild(opt);
  }
  const lv = $("level");
  lv.replaceChildren();
  for (const l of g.levels) {
    const opt = document.createElement("option");
    opt.value = opt.textContent = l;
    lv.appendChild(opt);
  }
}

function selectGame() {
  const s = ui.show;
  const start = s.game === "kpe" ? (s.variant === "4x6" ? "kpe" : "kpe:" + s.variant) : null;
  const sel = $("game");
  if (start && [...sel.options].some((o) => o.value === start)) sel.value = start;
  if (s.game === "kiothi" && !sel.value.startsWith("kiothi")) sel.value = "kiothi";
  const offer = [...sel.options].find((o) => o.value === sel.value);
  $("source").textContent = offer ? offer.textContent : "";
}

async function startFrom(position) {
  showError(null);
  try {
    const s = await api("show", { position });
    ui.history = [{ position: s.position, move: null }];
    ui.cur = 0;
    ui.analysis = null;
    ui.marks.clear();
    await setPosition();
  } catch (e) {
    showError(e);
  }
}

function wire() {
  $("new-game").addEventListener("click", () => startFrom($("game").value));
  $("game").addEventListener("change", () => startFrom($("game").value));
  $("load").addEventListener("click", () => startFrom($("position").value));
  $("position").addEventListener("keydown", (e) => { if (e.key === "Enter") startFrom($("position").value); });
  $("copy").addEventListener("click", () => {
    const t = $("position").value;
    if (navigator.clipboard) navigator.clipboard.writeText(t).catch(() => {});
    $("position").select();
  });
  $("play-text").addEventListener("click", () => playMove($("move-text").value.trim()));
  $("move-text").addEventListener("keydown", (e) => { if (e.key === "Enter") playMove($("move-text").value.trim()); });
  $("undo").addEventListener("click", () => { if (ui.cur > 0) { ui.cur -= 1; setPosition(); } });
  $("redo").addEventListener("click", () => { if (ui.cur + 1 < ui.history.length) { ui.cur += 1; setPosition(); } });
  $("stop").addEventListener("click", () => {
    // The running search answers with its last full depth; no new one starts.
    ui.stopped = true;
    fetch("/api/stop?client=" + CLIENT, { method: "POST" }).catch(() => {});
  });
  $("oracle-side").addEventListener("change", () => oracleTurn(ui.searchToken));
  $("analyze").addEventListener("click", analyzeGame);
  $("editor").addEventListener("submit", (e) => { e.preventDefault(); startFrom(editorNotation()); });
}

async function main() {
  wire();
  try {
    await loadGames();
  } catch (e) {
    showError(e);
  }
  const given = new URL(window.location).searchParams.get("position");
  await startFrom(given || $("game").value || "kiothi");
  document.body.dataset.ready = "1";
}

main();
