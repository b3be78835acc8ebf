// The web board's page: it draws what the server sends (the board is an SVG made by barcelona_ai.web.board_svg) and
// sends what the player does. No rule and no search lives here: legal moves, their board targets, the engine's
// moves, hints, analysis and reviews all come from the JSON API (barcelona_ai/web/server.py).
"use strict";

const PLAYER_COLOURS = ["#d1495b", "#2e86ab", "#3f9e4d", "#e08e0b"];
const HINT_COLOURS = ["#0b6e4f", "#c17c00", "#6d597a"];
// Between the engine's moves, so that they are seen one by one (the page's ?delay=MS changes it: tests use 0).
const STEP_DELAY_MS = Number(new URLSearchParams(location.search).get("delay") ?? 350);

const $ = (id) => document.getElementById(id);
let game = null;                      // the game document (webapi.game_document)
let hints = [];
let analysisSource = null;
let stepping = false;
// What a test (or a curious reader) can watch: requests in flight, and the game document shown.
window.boardState = { busy: 0, game: null };

// ---------------------------------------------------------------------------------------------------- requests
// The server answers only its own page: every API request carries the token the page was served with.
const TOKEN = document.querySelector('meta[name="barcelona-token"]').content;

async function api(method, path, body) {
  const opts = { method, headers: { "X-Barcelona-Token": TOKEN } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const response = await fetch(path, opts);
  const doc = await response.json();
  if (!response.ok) throw new Error(doc.error || `HTTP ${response.status}`);
  return doc;
}

function showError(message, where = "error") {
  const box = $(where);
  box.textContent = message ? `error: ${message}` : "";
  box.hidden = !message;
}

async function guarded(work, where = "error") {
  window.boardState.busy++;
  try {
    showError("", where);
    await work();
  } catch (err) {
    showError(err.message, where);
  } finally {
    window.boardState.busy--;
  }
}

// ------------------------------------------------------------------------------------------------- the game
function newGameOptions() {
  const opts = {
    mode: $("opt-mode").value,
    players: Number($("opt-players").value),
    seat: Number($("opt-seat").value),
    iterations: Number($("opt-iterations").value),
    hint_iterations: Number($("opt-hint").value),
  };
  if ($("opt-seed").value !== "") opts.seed = Number($("opt-seed").value);
  if (opts.mode === "table") {
    const setup = {};
    for (const input of $("setup-fields").querySelectorAll("input")) {
      if (input.value.trim()) setup[input.name] = input.value;
    }
    if (Object.keys(setup).length) opts.setup = setup;
  }
  return opts;
}

// The fields of a real table's setup, with the prompts of `barcelona-ai table` (from the server).
async function buildSetupFields() {
  const box = $("setup-fields");
  for (const f of (await api("GET", "/api/table-setup")).fields) {
    const label = document.createElement("label");
    label.textContent = f.name;
    const input = document.createElement("input");
    input.name = f.name;
    input.id = `setup-${f.name}`;
    input.placeholder = f.prompt;
    input.title = f.prompt;
    box.append(label, input);
  }
}

async function startGame(extra = {}) {
  stopAnalysis();
  const opts = Object.assign(newGameOptions(), extra);
  if (extra.record || extra.position) delete opts.players;
  if (extra.record) delete opts.seat;
  show(await api("POST", "/api/games", opts));
  await runSteps();
}

function show(doc) {
  game = doc;
  window.boardState.game = doc;
  hints = [];
  $("hints").innerHTML = "";
  $("meter").innerHTML = "";
  $("board").innerHTML = doc.svg;
  $("caption").textContent = doc.caption;
  $("undo").disabled = !doc.can_undo;
  const mine = doc.waiting === "you" && doc.to_move === doc.seat;
  $("hint").disabled = !mine;
  $("analyse").disabled = !mine;
  $("save-record").disabled = false;
  $("save-position").disabled = false;
  $("review-game").disabled = false;
  $("placement").hidden = doc.waiting !== "placement";
  showMoves(doc);
  showLog(doc);
  markTargets(doc);
}

function showMoves(doc) {
  const list = $("moves");
  list.innerHTML = "";
  const head = { you: doc.to_move === doc.seat ? "Your moves" : `P${doc.to_move}'s choices`,
                 draw: "Your draw", reveal: "The revealed tile", placement: "Or another choice" }[doc.waiting];
  $("moves-head").textContent = head || (doc.waiting === "over" ? "Game over" : "The engine is playing");
  for (const m of doc.legal) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.textContent = m.move;
    b.dataset.action = m.id;
    b.className = "move";
    b.addEventListener("click", () => guarded(() => play({ id: m.id })));
    li.appendChild(b);
    list.appendChild(li);
  }
}

function showLog(doc) {
  const log = $("log");
  log.innerHTML = "";
  for (const line of doc.log) {
    const li = document.createElement("li");
    li.textContent = line.text;
    if (line.event) li.className = "event";
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
}

function svgRoot() { return $("board").querySelector("svg"); }

function markTargets(doc) {
  const svg = svgRoot();
  if (!svg) return;
  const targets = new Set(doc.legal.map((m) => m.target).filter((t) => t));
  if (doc.waiting === "placement") {
    for (let c = 0; c < 25; c++) targets.add(`crossing:${c}`);
  }
  for (const el of svg.querySelectorAll(".target")) {
    el.classList.toggle("legal", targets.has(el.dataset.target));
  }
}

async function play(move) {
  hideMenu();
  stopAnalysis();
  const answer = await api("POST", `/api/games/${game.id}/move`, move);
  show(answer.game);
  await runSteps();
}

// The engine's moves and chance, one entry at a time, until the player decides (or the game ends).
async function runSteps() {
  if (stepping) return;
  stepping = true;
  try {
    while (game && game.waiting === "step") {
      await new Promise((resolve) => setTimeout(resolve, STEP_DELAY_MS));
      const answer = await api("POST", `/api/games/${game.id}/step`);
      show(answer.game);
    }
  } finally {
    stepping = false;
  }
}

// A click on the board: the legal moves at that place; one is played, several are offered in a menu.
function boardClick(event) {
  const el = event.target.closest("[data-target]");
  if (!el || !game || !el.classList.contains("legal")) return;
  const target = el.dataset.target;
  if (game.waiting === "placement" && target.startsWith("crossing:")) {
    const c = Number(target.split(":")[1]);
    $("placement-text").value = `place (${c % 5},${Math.floor(c / 5)}) `;
    $("placement-text").focus();
    return;
  }
  const moves = game.legal.filter((m) => m.target === target);
  if (moves.length === 1) {
    guarded(() => play({ id: moves[0].id }));
  } else if (moves.length > 1) {
    showMenu(moves, event.pageX, event.pageY);
  }
}

function showMenu(moves, x, y) {
  const menu = $("menu");
  menu.innerHTML = "";
  for (const m of moves) {
    const b = document.createElement("button");
    b.textContent = m.move;
    b.className = "menu-move";
    b.addEventListener("click", () => guarded(() => play({ id: m.id })));
    menu.appendChild(b);
  }
  menu.style.left = `${x + 8}px`;
  menu.style.top = `${y + 8}px`;
  menu.hidden = false;
}

function hideMenu() { $("menu").hidden = true; }

// ------------------------------------------------------------------------------------------------ hints
async function askHints() {
  const answer = await api("POST", `/api/games/${game.id}/hint`, {});
  hints = answer.hints;
  const list = $("hints");
  list.innerHTML = "";
  for (const h of hints) {
    const li = document.createElement("li");
    li.className = "hint";
    li.style.color = HINT_COLOURS[h.rank - 1];
    li.innerHTML = `<b></b><br><span class="nums"></span>`;
    li.querySelector("b").textContent = h.moves.join(" ; ");
    li.querySelector(".nums").textContent =
      `win ${(100 * h.win_prob).toFixed(0)}%, expected ${h.expected_score.toFixed(0)} VP, ${h.visits} visits`;
    li.title = "play this plan's first move";
    li.addEventListener("click", () => guarded(() => play({ id: h.actions[0] })));
    list.appendChild(li);
  }
  drawHints();
}

function centre(el) {
  const box = el.getBBox();
  return [box.x + box.width / 2, box.y + box.height / 2];
}

const SVG_NS = "http://www.w3.org/2000/svg";
function svgEl(name, attrs) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

// Each plan's moves on the board: a numbered badge on each move's place, arrows from one to the next.
function drawHints() {
  const svg = svgRoot();
  const overlay = svg.querySelector(".overlay");
  overlay.innerHTML = "";
  const defs = svgEl("defs", {});
  HINT_COLOURS.forEach((colour, k) => {
    const marker = svgEl("marker", { id: `arrow${k}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6,
                                     markerHeight: 6, orient: "auto-start-reverse" });
    marker.appendChild(svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: colour }));
    defs.appendChild(marker);
  });
  overlay.appendChild(defs);
  for (const h of [...hints].reverse()) {
    const k = h.rank - 1;
    const points = h.targets.map((t) => t && svg.querySelector(`[data-target="${t}"]`)).filter((el) => el)
      .map(centre);
    for (let i = 1; i < points.length; i++) {
      const [a, b] = [points[i - 1], points[i]];
      overlay.appendChild(svgEl("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: HINT_COLOURS[k],
                                          "stroke-width": 3, "marker-end": `url(#arrow${k})`, opacity: 0.85 }));
    }
    points.forEach(([x, y], i) => {
      const g = svgEl("g", { class: "hint-badge", "data-rank": h.rank });
      g.appendChild(svgEl("circle", { cx: x + 14 * k, cy: y - 14, r: 11, fill: HINT_COLOURS[k], stroke: "#fff" }));
      const text = svgEl("text", { x: x + 14 * k, y: y - 10, "text-anchor": "middle", "font-size": 12,
                                   "font-weight": "bold", fill: "#fff" });
      text.textContent = points.length > 1 ? `${h.rank}.${i + 1}` : `${h.rank}`;
      g.appendChild(text);
      overlay.appendChild(g);
    });
    if (points.length) {
      const [x, y] = points[0];
      const label = svgEl("text", { x: x + 14 * k + 14, y: y - 26, "font-size": 12, "font-weight": "bold",
                                    fill: HINT_COLOURS[k], class: "hint-label" });
      label.textContent = `${(100 * h.win_prob).toFixed(0)}% ${h.expected_score.toFixed(0)} VP`;
      overlay.appendChild(label);
    }
  }
}

// ---------------------------------------------------------------------------------------------- analysis
function showMeter(report) {
  const meter = $("meter");
  meter.innerHTML = `<div class="meter-head">Who is ahead (${report.iterations} iterations)</div>`;
  for (const p of report.players) {
    const row = document.createElement("div");
    row.className = "row";
    row.innerHTML = `<span>P${p.player}</span><div class="bar-out"><div class="bar-in"></div></div><span class="v"></span>`;
    const bar = row.querySelector(".bar-in");
    bar.style.width = `${(100 * p.win_prob).toFixed(1)}%`;
    bar.style.background = PLAYER_COLOURS[p.player];
    row.querySelector(".v").textContent =
      `${(100 * p.win_prob).toFixed(0)}%  ${p.expected_score.toFixed(0)} VP`;
    meter.appendChild(row);
  }
  if (report.moves.length) {
    const best = report.moves[0];
    const line = document.createElement("div");
    line.className = "meter-best";
    line.textContent = `best: ${best.moves.join(" ; ")} (you: ${(100 * best.win_prob).toFixed(0)}%, ` +
      `${best.expected_score.toFixed(0)} VP; ${best.visits} visits)`;
    meter.appendChild(line);
  }
}

function startAnalysis() {
  stopAnalysis();
  const source = new EventSource(`/api/games/${game.id}/analysis?iterations=${game.hint_iterations * 10}` +
                                 `&token=${encodeURIComponent(TOKEN)}`);
  analysisSource = source;
  $("stop").disabled = false;
  source.onmessage = (event) => showMeter(JSON.parse(event.data));
  source.addEventListener("end", () => { source.close(); if (analysisSource === source) finishAnalysis(); });
  source.onerror = () => { source.close(); if (analysisSource === source) finishAnalysis(); };
}

function finishAnalysis() {
  analysisSource = null;
  $("stop").disabled = true;
}

function stopAnalysis() {
  if (analysisSource && game) {
    api("POST", `/api/games/${game.id}/analysis/stop`).catch(() => {});
  }
}

// ------------------------------------------------------------------------------------------ saving, loading
function download(name, doc) {
  const blob = new Blob([JSON.stringify(doc, null, 1)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

async function loadFile(file) {
  const doc = JSON.parse(await file.text());
  if (doc && doc.format === "barcelona-record") {
    await startGame({ record: doc });
  } else {
    await startGame({ mode: "table", position: doc });
  }
}

// ------------------------------------------------------------------------------------------------ review
let review = null;

async function startReview() {
  const file = $("review-file").files[0];
  if (!file) throw new Error("choose a game record file first");
  await reviewRecord(JSON.parse(await file.text()));
}

async function reviewRecord(record) {
  $("review-board").innerHTML = "";
  $("review-decision").textContent = "";
  review = await api("POST", "/api/reviews", { record, iterations: Number($("review-iterations").value) });
  while (!review.done) {
    drawGraph(review);
    $("review-status").textContent = `reviewing: entry ${review.at} of ${review.entries}`;
    await new Promise((resolve) => setTimeout(resolve, 500));
    review = await api("GET", `/api/reviews/${review.id}`);
  }
  if (review.error) throw new Error(review.error);
  $("review-status").textContent = `reviewed ${review.decisions.length} decisions`;
  drawGraph(review);
}

// The engine's win probability of each player at that player's decisions, over the game's entries.
function drawGraph(doc) {
  const W = 1000, H = 260, pad = 30;
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "review-graph" });
  const x = (i) => pad + (W - 2 * pad) * i / Math.max(1, doc.entries);
  const y = (p) => H - pad - (H - 2 * pad) * p;
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    svg.appendChild(svgEl("line", { x1: pad, x2: W - pad, y1: y(v), y2: y(v), stroke: "#ddd" }));
    const t = svgEl("text", { x: 2, y: y(v) + 4, "font-size": 10, fill: "#777" });
    t.textContent = `${v * 100}%`;
    svg.appendChild(t);
  }
  for (let p = 0; p < doc.players; p++) {
    const mine = doc.decisions.filter((d) => d.player === p);
    const path = mine.map((d) => `${x(d.index).toFixed(1)},${y(d.engine_win_prob).toFixed(1)}`).join(" ");
    svg.appendChild(svgEl("polyline", { points: path, fill: "none", stroke: PLAYER_COLOURS[p], "stroke-width": 2 }));
    for (const d of mine) {
      const dot = svgEl("circle", { cx: x(d.index), cy: y(d.engine_win_prob), r: d.mark ? 5 : 3,
                                    fill: PLAYER_COLOURS[p], class: "point", "data-index": d.index });
      dot.addEventListener("click", () => guarded(() => showReviewPosition(d.index), "review-error"));
      svg.appendChild(dot);
    }
  }
  $("graph").innerHTML = "";
  $("graph").appendChild(svg);
}

async function showReviewPosition(index) {
  const doc = await api("GET", `/api/reviews/${review.id}/positions/${index}`);
  $("review-board").innerHTML = doc.svg;
  const d = doc.decision;
  $("review-decision").textContent = d
    ? `Entry ${d.index}: P${d.player} played ${d.played} (${(100 * d.played_win_prob).toFixed(0)}%); ` +
      `the engine: ${d.engine_move} (${(100 * d.engine_win_prob).toFixed(0)}%)` + (d.mark ? `  mark ${d.mark}` : "")
    : `Entry ${index}`;
}

// ------------------------------------------------------------------------------------------------- wiring
function switchTab(name) {
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === name);
  $("page-game").hidden = name !== "game";
  $("page-review").hidden = name !== "review";
}

window.addEventListener("DOMContentLoaded", () => {
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => switchTab(b.dataset.tab));
  $("new-game").addEventListener("submit", (e) => { e.preventDefault(); guarded(() => startGame()); });
  $("opt-mode").addEventListener("change", () => { $("setup-fields").hidden = $("opt-mode").value !== "table"; });
  guarded(buildSetupFields);
  $("board").addEventListener("click", boardClick);
  $("undo").addEventListener("click", () => guarded(async () => {
    stopAnalysis();
    const answer = await api("POST", `/api/games/${game.id}/undo`);
    show(answer.game);
  }));
  $("hint").addEventListener("click", () => guarded(askHints));
  $("analyse").addEventListener("click", () => guarded(async () => startAnalysis()));
  $("stop").addEventListener("click", () => guarded(async () => stopAnalysis()));
  $("save-record").addEventListener("click", () => guarded(async () =>
    download(`barcelona-game-${game.id}.json`, await api("GET", `/api/games/${game.id}/record`))));
  $("save-position").addEventListener("click", () => guarded(async () =>
    download(`barcelona-position-${game.id}.json`, await api("GET", `/api/games/${game.id}/position`))));
  $("review-game").addEventListener("click", () => guarded(async () => {
    const record = await api("GET", `/api/games/${game.id}/record`);
    switchTab("review");
    await guarded(() => reviewRecord(record), "review-error");
  }));
  $("load-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    if (file) guarded(() => loadFile(file));
    e.target.value = "";
  });
  $("placement-go").addEventListener("click", () => guarded(() => play({ move: $("placement-text").value })));
  $("placement-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter") guarded(() => play({ move: $("placement-text").value }));
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") hideMenu(); });
  $("review-form").addEventListener("submit", (e) => {
    e.preventDefault();
    guarded(startReview, "review-error");
  });
});
