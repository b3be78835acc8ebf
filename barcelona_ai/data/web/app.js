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

// An error in its box: a refused move (beside the board) and a refused edit of the board editor show the server's
// message as it is, the rules' reason; other errors say that they are one.
const AS_IS = new Set(["move-error", "ed-error"]);
function showError(message, where = "error") {
  const box = $(where);
  box.textContent = message ? (AS_IS.has(where) ? message : `error: ${message}`) : "";
  box.hidden = !message;
}

async function guarded(work, where = "error") {
  window.boardState.busy++;
  const queue = watchQueue();
  try {
    showError("", where);
    await work();
  } catch (err) {
    showError(err.message, where);
  } finally {
    queue.stop();
    window.boardState.busy--;
  }
}

// The server runs a few searches at once for all its pages and queues the others: a request still waiting after
// a moment shows how many searches run and wait on the server (GET /api/searches).
function watchQueue() {
  const box = $("queue");
  let timer = setTimeout(async function poll() {
    try {
      const s = await api("GET", "/api/searches");
      const waiting = s.waiting ? `, ${s.waiting} waiting for one` : "";
      box.textContent = `The engine is working: ${s.running} of the server's ${s.slots} searches running${waiting}.`;
      box.hidden = false;
    } catch (err) { /* the answer to the request itself says what went wrong */ }
    if (timer !== null) timer = setTimeout(poll, 1000);
  }, 1500);
  return { stop() { clearTimeout(timer); timer = null; box.hidden = true; } };
}

// A move of the game: a refusal shows beside the board, in the rules' words.
const act = (work) => guarded(work, "move-error");

// ------------------------------------------------------------------------------------------------- the game
function newGameOptions() {
  const opts = {
    mode: $("opt-mode").value,
    players: Number($("opt-players").value),
    seat: Number($("opt-seat").value),
    hint_iterations: Number($("opt-hint").value),
  };
  if ($("opt-edition").value) opts.edition = $("opt-edition").value;
  if (opts.mode === "play") opts.iterations = Number($("opt-iterations").value);
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

// The fields of a real table's setup, each with the prompt of `barcelona-ai table` (from the server) under it.
async function buildSetupFields() {
  const box = $("setup-fields");
  const answer = await api("GET", "/api/table-setup");
  for (const ed of answer.editions) {             // the boards this server plays; its own is chosen
    const option = new Option(ed.words, ed.name, false, ed.name === answer.default);
    $("opt-edition").append(option);
  }
  for (const f of answer.fields) {
    const label = document.createElement("label");
    label.textContent = f.name;
    label.htmlFor = `setup-${f.name}`;
    const input = document.createElement("input");
    input.name = f.name;
    input.id = `setup-${f.name}`;
    input.setAttribute("aria-describedby", `setup-help-${f.name}`);
    const help = setupHelp(f, input);
    help.id = `setup-help-${f.name}`;
    box.append(label, input, help);
  }
}

// What to type in a setup field: its prompt; a prompt of several lines (a list to choose from) or a field with
// `choices` shows its last line, the instruction, and the list folded under it: a click on a choice of the list
// adds it to the field.
function setupHelp(f, input) {
  const help = document.createElement("div");
  help.className = "help";
  const lines = f.prompt.split("\n").map((line) => line.trim()).filter((line) => line);
  const choices = Array.isArray(f.choices) && f.choices.length ? f.choices : null;
  if (!choices && lines.length <= 1) {
    help.textContent = f.prompt;
    return help;
  }
  const intro = document.createElement("div");
  intro.textContent = lines[lines.length - 1];
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = choices ? "choose from the list" : "the list";
  const list = document.createElement("ul");
  list.className = "choices";
  if (choices) {
    for (const c of choices) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "choice";
      b.dataset.value = c.value;
      b.textContent = `${c.value}: ${c.name}` + (c.text ? ` (${c.text})` : "");
      b.addEventListener("click", () => {
        input.value = `${input.value.trim()} ${c.value}`.trim();
        input.dispatchEvent(new Event("input"));
      });
      li.appendChild(b);
      list.appendChild(li);
    }
  } else {
    for (const text of lines.slice(0, -1)) {
      const li = document.createElement("li");
      li.textContent = text;
      list.appendChild(li);
    }
  }
  details.append(summary, list);
  help.append(intro, details);
  return help;
}

// What the new-game form shows: the table's setup only for a table, the engine's strength only against it, and
// the seats the player count has.
function showModeFields() {
  const table = $("opt-mode").value === "table";
  $("setup-fields").hidden = !table;
  for (const el of document.querySelectorAll(".play-only")) el.hidden = table;
  const players = Number($("opt-players").value);
  for (const option of $("opt-seat").options) option.disabled = Number(option.value) >= players;
  if (Number($("opt-seat").value) >= players) $("opt-seat").value = "0";
}

async function startGame(extra = {}) {
  stopAnalysis();
  const opts = Object.assign(newGameOptions(), extra);
  if (extra.record || extra.position) {
    delete opts.players;
    delete opts.setup;
  }
  if (extra.record) delete opts.seat;
  if (opts.mode === "table") delete opts.iterations;
  const doc = await api("POST", "/api/games", opts);
  showError("", "move-error");
  logWho.reset(extra.record);
  show(doc);
  await runSteps();
}

function show(doc) {
  logWho.note(game, doc);
  game = doc;
  window.boardState.game = doc;
  hints = [];
  $("hints").innerHTML = "";
  $("meter").innerHTML = "";
  $("engine-note").textContent = doc.engine_note || "";    // where the numbers are not the learned models'
  $("engine-note").hidden = !doc.engine_note;
  $("board").innerHTML = doc.svg;
  $("caption").textContent = doc.caption;
  $("undo").disabled = !doc.can_undo;
  const mine = doc.waiting === "you" && doc.to_move === doc.seat;
  $("hint").disabled = !mine;
  $("analyse").disabled = !mine;
  $("save-record").disabled = false;
  $("save-position").disabled = false;
  $("review-game").disabled = false;
  $("ed-current").disabled = false;
  $("placement").hidden = doc.waiting !== "placement";
  order = null;
  showOrder();
  showProposal(doc);
  showMoves(doc);
  showPreview([]);
  showLog(doc);
  markTargets(doc);
}

function showMoves(doc) {
  const list = $("moves");
  list.innerHTML = "";
  const head = { you: doc.to_move === doc.seat ? "Your moves" : `${playerName(doc, doc.to_move)}'s choices`,
                 draw: "Your draw: which citizen did you draw?", reveal: "The revealed tile: which one?",
                 placement: "Or another choice" }[doc.waiting];
  $("moves-head").textContent = head || (doc.waiting === "over" ? "Game over" : "The engine is playing");
  $("moves-head").hidden = doc.waiting === "placement" && !doc.legal.length;
  for (const m of doc.legal) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.dataset.action = m.id;
    b.className = "move";
    if (m.name) {                                // a picker's choice: a citizen's class, a tile with its text
      b.classList.add("pick");
      b.innerHTML = "<b></b> <span class=\"text\"></span>";
      b.querySelector("b").textContent = m.name;
      b.querySelector(".text").textContent = m.text || "";
      b.title = m.move;
    } else {
      b.textContent = m.move;
    }
    if (m.preview) b.title = m.preview;
    b.addEventListener("click", () => act(() => play({ id: m.id })));
    b.addEventListener("mouseenter", () => showPreview([m]));
    b.addEventListener("focus", () => showPreview([m]));
    li.appendChild(b);
    list.appendChild(li);
  }
}

// What the moves under the pointer (a choice, its place on the board) will do, from the rules (their previews).
function showPreview(moves) {
  $("preview").textContent = moves.filter((m) => m.preview).map((m) => `${m.move}: ${m.preview}`).join("\n");
}

// ------------------------------------------------------------------------------------ a real table's entries
// Another player's likely move, proposed by the engine from what you can see: Enter (or a click) confirms it; it
// is never entered otherwise. A placement whose citizens you have not seen is proposed as its crossing only.
function showProposal(doc) {
  const p = doc.proposal;
  $("proposal").hidden = !p;
  if (!p) return;
  const rest = p.id === null ? "press Enter / click to take this crossing, then enter their citizens"
    : "press Enter / click to confirm";
  $("proposal-go").textContent = `Likely: ${playerName(doc, p.player)}: ${p.move} \u2014 ${rest}`;
  $("proposal-why").textContent = p.why;
}

function confirmProposal() {
  const p = game && game.proposal;
  if (!p) return;
  if (p.id === null) {
    startOrder(p.crossing);
    return;
  }
  act(() => play(game.waiting === "placement" ? { move: p.move } : { id: p.id }));
}

// Another player's placement entered by clicks: the crossing, then the citizens placed, top first (only the
// classes of which you have not seen every citizen); the text field shows the move as it grows.
const CLASS_NAMES = { W: "Working", M: "Middle", U: "Upper" };
let order = null;                     // {crossing, top} while a placement is being entered

function crossingName(c) { return `(${c % 5},${Math.floor(c / 5)})`; }

function startOrder(c) {
  if (!game || game.waiting !== "placement") return;
  order = { crossing: c, top: null };
  showOrder();
}

function showOrder() {
  const box = $("order");
  const svg = svgRoot();
  for (const el of svg ? svg.querySelectorAll(".target.chosen") : []) el.classList.remove("chosen");
  if (order && svg) {                                            // the crossing being entered, marked
    const el = svg.querySelector(`[data-target="crossing:${order.crossing}"]`);
    if (el) el.classList.add("chosen");
  }
  if (!order || !game || game.waiting !== "placement" || !game.placement) {
    box.hidden = true;
    return;
  }
  const pl = game.placement;
  const two = pl.citizens >= 2;
  const where = crossingName(order.crossing);
  $("placement-text").value = `place ${where} ` + (order.top ? `${order.top}/` : "");
  $("order-head").textContent = order.top === null
    ? `${playerName(game, pl.player)} on ${where}: ${two ? "the citizen on top?" : "which citizen?"}`
    : `${playerName(game, pl.player)} on ${where}: ${order.top} on top; the citizen under it?`;
  const classes = $("order-classes");
  classes.innerHTML = "";
  for (const k of ["W", "M", "U"]) {
    if (pl.unseen[k] - (order.top === k ? 1 : 0) <= 0) continue;
    const b = document.createElement("button");
    b.className = "order-class";
    b.dataset.cls = k;
    b.textContent = `${k}: ${CLASS_NAMES[k]}`;
    b.addEventListener("click", () => chooseClass(k));
    classes.appendChild(b);
  }
  box.hidden = false;
}

function chooseClass(k) {
  if (!order) return;
  if (order.top === null && game.placement.citizens >= 2) {
    order.top = k;
    showOrder();
    return;
  }
  const move = `place ${crossingName(order.crossing)} ${order.top === null ? k : `${order.top}/${k}`}`;
  order = null;
  showOrder();
  $("placement-text").value = move;
  act(() => play({ move }));
}

function playerName(doc, p) {
  return (doc.names && doc.names[p]) || `P${p}`;
}

// Who made each entry of the log, and in which round. A log line that says it (`player`, `round`) is taken at its
// word; otherwise the page remembers, for each entry it saw played, the round and the player to move before it
// (a chance outcome, a draw or a reveal, belongs to the turn of the player who moved last). Entries of a loaded
// record take their player from the record's `by`.
const logWho = {
  entries: new Map(),                 // entry index -> {round, player}
  turnPlayer: null,

  reset(record) {
    this.entries.clear();
    this.turnPlayer = null;
    if (!record || !Array.isArray(record.actions)) return;
    record.actions.forEach((entry, i) => {
      if (Number.isInteger(entry.by)) this.turnPlayer = entry.by;
      this.entries.set(i, { round: null, player: this.turnPlayer });
    });
  },

  note(before, after) {
    if (!before || before.id !== after.id) return;
    if (before.to_move !== null && before.to_move !== undefined) this.turnPlayer = before.to_move;
    for (let i = before.entries; i < after.entries; i++) {
      this.entries.set(i, { round: before.round, player: this.turnPlayer });
    }
  },

  prefix(doc, line) {
    const known = this.entries.get(line.index) || {};
    const round = line.round ?? known.round;
    const player = "player" in line ? line.player : line.event ? null : known.player;
    const parts = [];
    if (round !== null && round !== undefined) parts.push(`Round ${round}`);
    if (player !== null && player !== undefined) parts.push(playerName(doc, player));
    return { text: parts.join(", "), player };
  },
};

function showLog(doc) {
  const log = $("log");
  log.innerHTML = "";
  for (const line of doc.log) {
    const li = document.createElement("li");
    li.value = line.index + 1;                   // the entry's number in the game
    const who = logWho.prefix(doc, line);
    if (who.text) {
      const span = document.createElement("span");
      span.className = "who";
      span.textContent = `${who.text}: `;
      if (who.player !== null && who.player !== undefined) span.style.color = PLAYER_COLOURS[who.player];
      li.appendChild(span);
    }
    li.appendChild(document.createTextNode(line.text));
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
  const placing = doc.waiting === "placement";
  if (placing) {                     // the crossings it may take light up; another one may be entered too
    for (const c of doc.placement.crossings) targets.add(`crossing:${c}`);
  }
  for (const el of svg.querySelectorAll(".target")) {
    el.classList.toggle("legal", targets.has(el.dataset.target));
    el.classList.toggle("enterable", placing && el.dataset.target.startsWith("crossing:"));
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
  if (!el || !game) return;
  const target = el.dataset.target;
  if (game.waiting === "placement" && target.startsWith("crossing:")) {
    startOrder(Number(target.split(":")[1]));
    return;
  }
  if (!el.classList.contains("legal")) return;
  const moves = game.legal.filter((m) => m.target === target);
  if (moves.length === 1) {
    act(() => play({ id: moves[0].id }));
  } else if (moves.length > 1) {
    showMenu(moves.map((m) => ({ label: m.move, title: m.preview, className: "menu-move",
                                  hover: () => showPreview([m]), click: () => act(() => play({ id: m.id })) })),
             event.pageX, event.pageY);
  }
}

// What a legal place under the pointer would play.
function boardHover(event) {
  const el = event.target.closest && event.target.closest("[data-target]");
  if (!el || !game || !el.classList.contains("legal")) return;
  showPreview(game.legal.filter((m) => m.target === el.dataset.target));
}

// A menu beside the click and inside the page's width: the moves at one place, or the board editor's changes of
// one place ({label, title, className, hover, click, group}: a new group starts under its heading).
function showMenu(items, x, y) {
  const menu = $("menu");
  menu.innerHTML = "";
  let group = null;
  for (const item of items) {
    if (item.group && item.group !== group) {
      group = item.group;
      const head = document.createElement("div");
      head.className = "menu-head";
      head.textContent = group;
      menu.appendChild(head);
    }
    const b = document.createElement("button");
    b.textContent = item.label;
    b.className = item.className || "menu-item";
    if (item.title) b.title = item.title;
    if (item.hover) b.addEventListener("mouseenter", item.hover);
    b.addEventListener("click", () => { hideMenu(); item.click(); });
    menu.appendChild(b);
  }
  menu.style.left = "0px";
  menu.style.top = `${y + 8}px`;
  menu.hidden = false;
  const width = menu.getBoundingClientRect().width;
  const right = window.scrollX + document.documentElement.clientWidth - 8;
  menu.style.left = `${Math.max(window.scrollX + 8, Math.min(x + 8, right - width))}px`;
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
    if (h.reason) {                              // what the plan does, where the hint says it
      const why = document.createElement("div");
      why.className = "why";
      why.textContent = h.reason;
      li.appendChild(why);
    }
    li.title = "play this plan's first move";
    li.addEventListener("click", () => act(() => play({ id: h.actions[0] })));
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

// Boxes laid on the board without overlapping each other or the places the hints point at: each goes to the
// first free spot on rings around its anchor (up-right first), or, failing those, below the lowest box.
class BoxPlacer {
  constructor(width, height, gap) {
    this.width = width;
    this.height = height;
    this.gap = gap;
    this.boxes = [];
  }

  block(box) { this.boxes.push(box); }

  free(box) {
    const g = this.gap;
    return box.x >= 0 && box.y >= 0 && box.x + box.w <= this.width && box.y + box.h <= this.height &&
      this.boxes.every((b) => box.x + box.w + g <= b.x || b.x + b.w + g <= box.x ||
                               box.y + box.h + g <= b.y || b.y + b.h + g <= box.y);
  }

  place(cx, cy, w, h) {
    const step = Math.max(w, h) / 2 + this.gap;
    for (let ring = 1; ring <= 8; ring++) {
      for (let k = 0; k < 16; k++) {
        const angle = -Math.PI / 4 - (k % 2 ? 1 : -1) * Math.ceil(k / 2) * Math.PI / 8;
        const box = { x: cx + ring * step * Math.cos(angle) - w / 2, y: cy + ring * step * Math.sin(angle) - h / 2,
                      w, h };
        if (this.free(box)) {
          this.boxes.push(box);
          return box;
        }
      }
    }
    const bottom = Math.max(0, ...this.boxes.map((b) => b.y + b.h));
    const box = { x: Math.max(0, Math.min(cx - w / 2, this.width - w)), y: bottom + this.gap, w, h };
    this.boxes.push(box);
    return box;
  }
}

// The size of a hint's badge in board units: about 18 screen pixels across on a wide board, never smaller than
// the board's own labels and never over a crossing's width, so that a badge stays readable on a phone.
function badgeRadius(svg) {
  const shown = svg.getBoundingClientRect().width || svg.viewBox.baseVal.width;
  const unitsPerPixel = svg.viewBox.baseVal.width / shown;
  return Math.max(11, Math.min(24, 9 * unitsPerPixel));
}

// Each plan's moves on the board: arrows from one move's place to the next, a numbered badge beside each place,
// and the plan's numbers beside its first badge. Nothing of it takes a click: a click on a place a hint points at
// plays there.
function drawHints() {
  const svg = svgRoot();
  if (!svg) return;
  const overlay = svg.querySelector(".overlay");
  overlay.innerHTML = "";
  if (!hints.length) return;
  const defs = svgEl("defs", {});
  HINT_COLOURS.forEach((colour, k) => {
    const marker = svgEl("marker", { id: `arrow${k}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6,
                                     markerHeight: 6, orient: "auto-start-reverse" });
    marker.appendChild(svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: colour }));
    defs.appendChild(marker);
  });
  overlay.appendChild(defs);
  const view = svg.viewBox.baseVal;
  const r = badgeRadius(svg);
  const placer = new BoxPlacer(view.width, view.height, r * 0.15);
  const plans = hints.map((h) => ({
    hint: h, k: h.rank - 1,
    places: h.targets.map((t) => t && svg.querySelector(`[data-target="${t}"]`)).filter((el) => el),
  }));
  for (const plan of plans) {
    for (const el of plan.places) {
      const b = el.getBBox();
      placer.block({ x: b.x, y: b.y, w: b.width, h: b.height });
    }
  }
  for (const plan of [...plans].reverse()) {
    const points = plan.places.map(centre);
    for (let i = 1; i < points.length; i++) {
      const [a, b] = [points[i - 1], points[i]];
      overlay.appendChild(svgEl("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: HINT_COLOURS[plan.k],
                                          "stroke-width": r / 4, "marker-end": `url(#arrow${plan.k})`,
                                          opacity: 0.85, class: "hint-arrow" }));
    }
  }
  for (const plan of plans) {
    const { hint: h, k } = plan;
    plan.places.map(centre).forEach(([x, y], i, points) => {
      const box = placer.place(x, y, 2 * r, 2 * r);
      const [bx, by] = [box.x + r, box.y + r];
      const g = svgEl("g", { class: "hint-badge", "data-rank": h.rank });
      g.appendChild(svgEl("circle", { cx: bx, cy: by, r: r - 1, fill: HINT_COLOURS[k], stroke: "#fff",
                                      "stroke-width": 1.5 }));
      const text = svgEl("text", { x: bx, y: by + r * 0.35, "text-anchor": "middle", "font-size": r,
                                   "font-weight": "bold", fill: "#fff" });
      text.textContent = points.length > 1 ? `${h.rank}.${i + 1}` : `${h.rank}`;
      g.appendChild(text);
      overlay.appendChild(g);
      if (i === 0) drawHintLabel(overlay, placer, h, k, bx, by, r);
    });
  }
}

function drawHintLabel(overlay, placer, h, k, x, y, r) {
  const g = svgEl("g", { class: "hint-label", "data-rank": h.rank });
  const text = svgEl("text", { "font-size": r, "font-weight": "bold", fill: HINT_COLOURS[k] });
  text.textContent = `${(100 * h.win_prob).toFixed(0)}% ${h.expected_score.toFixed(0)} VP`;
  g.appendChild(text);
  overlay.appendChild(g);
  const w = text.getComputedTextLength() + r * 0.6;
  const hgt = r * 1.4;
  const box = placer.place(x, y, w, hgt);
  g.insertBefore(svgEl("rect", { x: box.x, y: box.y, width: w, height: hgt, rx: r * 0.3, fill: "#fff",
                                 opacity: 0.85 }), text);
  text.setAttribute("x", box.x + r * 0.3);
  text.setAttribute("y", box.y + hgt * 0.72);
}

// ---------------------------------------------------------------------------------------------- analysis
function showMeter(report) {
  const meter = $("meter");
  meter.innerHTML = `<div class="meter-head">Who is ahead (${report.iterations} iterations)</div>`;
  for (const p of report.players) {
    const row = document.createElement("div");
    row.className = "row";
    row.innerHTML = `<span></span><div class="bar-out"><div class="bar-in"></div></div><span class="v"></span>`;
    row.querySelector("span").textContent = playerName(game, p.player);
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
  source.addEventListener("busy", (event) => {
    source.close();
    showError(JSON.parse(event.data).error);
    if (analysisSource === source) finishAnalysis();
  });
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
    const seat = Number.isInteger(doc && doc.viewpoint) ? { seat: doc.viewpoint } : {};   // the seat that wrote it
    await startGame({ mode: "table", position: doc, ...seat });
  }
}

// ------------------------------------------------------------------------------------------------ review
let review = null;                     // the review document (webapi.ReviewJob.document)
let reviewed = null;                   // the record under review
let reviewRounds = null;               // the round of each entry of that record, where known
let reviewAt = null;                   // the position shown: before entry reviewAt (reviewAt moves played)
const MARKED = ["inaccuracy", "mistake", "blunder"];

async function startReview() {
  const file = $("review-file").files[0];
  if (!file) throw new Error("choose a game record file first");
  await reviewRecord(JSON.parse(await file.text()));
}

// The round of each entry of the game on the board, if the page saw every one of them played.
function gameRounds(doc) {
  const rounds = [];
  for (let i = 0; i < doc.entries; i++) {
    const known = logWho.entries.get(i);
    if (!known || known.round === null || known.round === undefined) return null;
    rounds.push(known.round);
  }
  return rounds;
}

async function reviewRecord(record, rounds = null) {
  $("review-board").innerHTML = "";
  $("review-decision").textContent = "";
  $("review-at").textContent = "";
  $("review-nav").hidden = true;
  reviewAt = null;
  reviewed = record;
  reviewRounds = rounds;
  review = await api("POST", "/api/reviews", { record, iterations: Number($("review-iterations").value) });
  $("review-note").textContent = review.engine_note || "";   // where the numbers are not the learned models'
  $("review-note").hidden = !review.engine_note;
  while (!review.done) {
    drawGraph(review);
    $("review-status").textContent = `reviewing: move ${review.at + 1} of ${review.entries}`;
    await new Promise((resolve) => setTimeout(resolve, 500));
    review = await api("GET", `/api/reviews/${review.id}`);
  }
  if (review.error) throw new Error(review.error);
  $("review-status").textContent = `reviewed ${review.decisions.length} decisions`;
  drawGraph(review);
  $("review-nav").hidden = false;
  await showReviewPosition(0);
}

// A seat of the record under review, with who played it ("human", "engine" for a search bot's "ismcts:N").
function reviewName(p) {
  const seats = reviewed && reviewed.seats;
  if (!seats || !seats[p]) return `P${p}`;
  return `P${p} (${/^ismcts\b/.test(seats[p]) ? "engine" : seats[p]})`;
}

// The round of entry `index`: the decision's own `round` where the review gives it, else the page's memory of the
// game, else the round of the decisions on both sides of it when they agree; null where none of them knows.
function roundOf(index) {
  const rounded = review ? review.decisions.filter((x) => x.round !== undefined && x.round !== null) : [];
  const d = rounded.find((x) => x.index === index);
  if (d) return d.round;
  if (reviewRounds && index < reviewRounds.length) return reviewRounds[index];
  const before = rounded.filter((x) => x.index < index).pop();
  const after = rounded.find((x) => x.index > index);
  return before && after && before.round === after.round ? before.round : null;
}

// The first entry of each round: the graph's round axis (empty where the rounds are not known).
function roundStarts(doc) {
  const starts = [];
  for (let i = 0; i < doc.entries; i++) {
    const round = roundOf(i);
    if (round !== null && (!starts.length || round > starts[starts.length - 1].round)) starts.push({ round, index: i });
  }
  return starts;
}

// The engine's win probability of each player at that player's decisions, over the game's moves; a marked
// decision (inaccuracy, mistake, blunder) is a larger dot with a dark ring, and a dashed line marks the move
// shown. Drawn in the graph's own pixels, so that its text stays readable at any width.
function drawGraph(doc) {
  const W = Math.max(320, Math.round($("graph").clientWidth || 1000) - 2);
  const narrow = W < 600;
  const H = narrow ? 220 : 280, left = 40, right = 12, top = 12, bottom = 40;
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "review-graph", role: "img",
                             "aria-label": "each player's chance to win over the game" });
  const x = (i) => left + (W - left - right) * i / Math.max(1, doc.entries);
  const y = (p) => H - bottom - (H - top - bottom) * p;
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    svg.appendChild(svgEl("line", { x1: left, x2: W - right, y1: y(v), y2: y(v), stroke: "#ddd" }));
    const t = svgEl("text", { x: left - 4, y: y(v) + 4, "font-size": 11, fill: "#555", "text-anchor": "end" });
    t.textContent = `${v * 100}%`;
    svg.appendChild(t);
  }
  drawAxis(svg, doc, x, y(0), H, narrow);
  if (reviewAt !== null) {
    svg.appendChild(svgEl("line", { x1: x(reviewAt), x2: x(reviewAt), y1: top, y2: y(0), stroke: "#222",
                                    "stroke-dasharray": "4 3", class: "cursor" }));
  }
  for (let p = 0; p < doc.players; p++) {
    const mine = doc.decisions.filter((d) => d.player === p);
    const path = mine.map((d) => `${x(d.index).toFixed(1)},${y(d.engine_win_prob).toFixed(1)}`).join(" ");
    svg.appendChild(svgEl("polyline", { points: path, fill: "none", stroke: PLAYER_COLOURS[p], "stroke-width": 2 }));
    for (const d of mine) {
      const marked = MARKED.includes(d.mark);
      const dot = svgEl("circle", { cx: x(d.index), cy: y(d.engine_win_prob), r: marked ? 6 : 3.5,
                                    fill: PLAYER_COLOURS[p], class: `point mark-${d.mark}`, "data-index": d.index,
                                    stroke: marked ? "#222" : "none", "stroke-width": d.mark === "blunder" ? 3 : 2 });
      const tip = svgEl("title", {});
      tip.textContent = `move ${d.index + 1}: ${reviewName(p)} played ${d.played} (${d.mark})`;
      dot.appendChild(tip);
      dot.addEventListener("click", () => guarded(() => showReviewPosition(d.index), "review-error"));
      svg.appendChild(dot);
    }
  }
  $("graph").innerHTML = "";
  $("graph").appendChild(svg);
  drawLegend(doc);
}

// The x axis: the rounds where they are known, else the move numbers.
function drawAxis(svg, doc, x, y0, H, narrow) {
  svg.appendChild(svgEl("line", { x1: x(0), x2: x(doc.entries), y1: y0, y2: y0, stroke: "#888" }));
  const tick = (i, text, cls) => {
    svg.appendChild(svgEl("line", { x1: x(i), x2: x(i), y1: y0, y2: y0 + 5, stroke: "#888" }));
    if (text === null) return;
    const t = svgEl("text", { x: x(i), y: y0 + 17, "font-size": 11, fill: "#555", "text-anchor": "middle",
                              class: cls });
    t.textContent = text;
    svg.appendChild(t);
  };
  const starts = roundStarts(doc);
  const label = svgEl("text", { x: x(doc.entries), y: H - 4, "font-size": 11, fill: "#555", "text-anchor": "end",
                                class: "axis-name" });
  svg.appendChild(label);
  if (starts.length) {
    label.textContent = "round";
    const every = Math.max(1, Math.ceil(starts.length / (narrow ? 6 : 12)));
    starts.forEach((s, k) => tick(s.index, k % every ? null : `${s.round}`, "round-tick"));
    return;
  }
  label.textContent = "move";
  const step = Math.max(1, Math.ceil(doc.entries / (narrow ? 5 : 10) / 10) * 10);
  for (let i = 0; i <= doc.entries; i += step) tick(i, `${i}`, "move-tick");
}

function drawLegend(doc) {
  const legend = $("graph-legend");
  legend.innerHTML = "";
  const item = (colour, text, ring = false) => {
    const span = document.createElement("span");
    span.className = "legend-item";
    const swatch = document.createElement("span");
    swatch.className = ring ? "swatch ring" : "swatch";
    if (colour) swatch.style.background = colour;
    span.append(swatch, document.createTextNode(text));
    legend.appendChild(span);
  };
  for (let p = 0; p < doc.players; p++) item(PLAYER_COLOURS[p], reviewName(p));
  item(null, "ringed: an inaccuracy, a mistake or a blunder", true);
  const note = document.createElement("span");
  note.className = "legend-note";
  note.textContent = "each line: that player's chance to win, as the engine sees it, at their decisions";
  legend.appendChild(note);
  drawSummary(doc);
}

const MARKS = ["best", "good", "inaccuracy", "mistake", "blunder"];
const MARKS_MANY = { best: "best", good: "good", inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };

// Each reviewed player's accuracy and marks, once the review is done (its summary).
function drawSummary(doc) {
  const box = $("review-summary");
  box.innerHTML = "";
  for (const s of doc.done ? doc.summary || [] : []) {
    const p = document.createElement("p");
    p.className = "summary-line";
    const counts = MARKS.filter((m) => s[m]).map((m) => `${s[m]} ${s[m] === 1 ? m : MARKS_MANY[m]}`);
    p.textContent = `${reviewName(s.player)}: ` +
      (s.accuracy !== undefined ? `accuracy ${s.accuracy.toFixed(0)}, ` : "") +
      `${s.decisions} decisions` + (counts.length ? ` (${counts.join(", ")})` : "");
    p.style.borderLeftColor = PLAYER_COLOURS[s.player];
    box.appendChild(p);
  }
}

// The position before entry `index` (0: the start, the record's length: the end), the move played from it and,
// at a reviewed decision, the engine's choice and its line.
async function showReviewPosition(index) {
  if (!review) return;
  index = Math.max(0, Math.min(review.entries, index));
  reviewAt = index;
  drawGraph(review);
  showReviewStep(index, review.decisions.find((d) => d.index === index));
  const doc = await api("GET", `/api/reviews/${review.id}/positions/${index}`);
  if (reviewAt !== index) return;                 // a later step was asked for meanwhile
  $("review-board").innerHTML = doc.svg;
  showReviewStep(index, doc.decision);
}

const percent = (p) => `${(100 * p).toFixed(0)}%`;

function showReviewStep(index, d) {
  const n = review.entries;
  const entry = reviewed && reviewed.actions ? reviewed.actions[index] : null;
  const round = roundOf(index);
  const at = index >= n ? `The end: all ${n} moves played` : `Move ${index + 1} of ${n} (the board before it)`;
  $("review-at").textContent = round !== null && index < n ? `Round ${round}, ${at.toLowerCase()}` : at;
  $("review-first").disabled = $("review-prev").disabled = index <= 0;
  $("review-next").disabled = $("review-last").disabled = index >= n;
  const box = $("review-decision");
  box.innerHTML = "";
  const para = (text, cls) => {
    const p = document.createElement("p");
    p.textContent = text;
    if (cls) p.className = cls;
    box.appendChild(p);
    return p;
  };
  if (d) {
    const by = { "win probability": "by the chance to win it lost", "final VP": "by the final VP it lost",
                 both: "by the chance to win and the final VP it lost" }[d.marked_by];
    const notes = [d.accuracy !== undefined ? `accuracy ${d.accuracy.toFixed(0)}` : null,
                   d.mark !== "best" && by ? by : null].filter((t) => t);
    para(`${reviewName(d.player)} played ${d.played}: ${d.mark}` + (notes.length ? ` (${notes.join("; ")})` : ""),
         `mark mark-${d.mark}`);
    const scores = d.engine_score !== undefined && d.played_score !== undefined;
    if (d.played_id !== d.engine_id) {
      para(`The engine's move: ${d.engine_move}`, "engine-move");
      para(`Chance to win: ${percent(d.played_win_prob)} played, ${percent(d.engine_win_prob)} the engine's move` +
           (scores ? `; expected final score: ${d.played_score.toFixed(0)} VP played, ` +
                     `${d.engine_score.toFixed(0)} VP the engine's move` : ""));
    } else {
      para("The engine plays the same move.", "engine-move");
      para(`Chance to win ${percent(d.engine_win_prob)}` +
           (scores ? `, expected final score ${d.engine_score.toFixed(0)} VP` : ""));
    }
    const line = d.engine_line || d.main_line;
    if (Array.isArray(line) && line.length) {
      para("The engine's line from here:");
      para(line.join(" ; "), "line");
    }
  } else if (entry) {
    const who = Number.isInteger(entry.by) ? `${reviewName(entry.by)} played` : "Chance:";
    para(`${who} ${entry.move || "a hidden draw"} (not a decision the review marks)`);
  }
}

function reviewKeys(event) {
  if ($("page-review").hidden || !review || reviewAt === null || $("review-nav").hidden) return;
  if (event.target.closest && event.target.closest("input, select, textarea")) return;
  const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[event.key];
  if (moves === undefined) return;
  event.preventDefault();
  reviewStep(moves);
}

function reviewStep(moves) {
  if (reviewAt === null) return;
  const to = moves === Infinity ? review.entries : moves === -Infinity ? 0 : reviewAt + moves;
  guarded(() => showReviewPosition(to), "review-error");
}

// ------------------------------------------------------------------------------------------ the board editor
// A position set up by clicks: started from a new setup or the game on the board, every change is sent to the
// server, which reads it as a position file is read (State.from_json) and draws it; a change the reader refuses
// is not made, and its reason shows as the reader gives it. What follows from the rest (the bag, the tiles left,
// the pieces each player has laid, the turn's machinery) is left out of the document, for the reader to count.
let edDoc = null;                      // the position document being edited (docs/positions.md)
let edNames = null;                    // {spaces, buildings}: the board's names by data-target index
const DERIVED = ["bag", "unseen_pool", "building_tiles_left", "bonus_rows_taken", "turn_state",
                 "cerda_scorings_done", "phase"];
const PLAYER_DERIVED = ["intersections", "narrow_laid", "wide_laid", "passengers", "markers_placed", "turns"];
const CLASS_WORDS = { W: "WORKING", M: "MIDDLE", U: "UPPER" };

function editable(doc) {
  const out = JSON.parse(JSON.stringify(doc));
  for (const k of DERIVED) delete out[k];
  for (const p of out.players || []) for (const k of PLAYER_DERIVED) delete p[k];
  return out;
}

// The position drawn as the reader takes it; the editor keeps it only if the reader does.
async function drawEdited(doc) {
  const answer = await api("POST", "/api/positions/board", { position: doc });
  edDoc = doc;
  edNames = { spaces: answer.spaces, buildings: answer.buildings };
  window.boardState.editor = edDoc;
  $("ed-board").innerHTML = answer.svg;
  for (const el of $("ed-board").querySelectorAll(".target")) {
    el.classList.toggle("editable", /^(crossing|space|building):/.test(el.dataset.target));
  }
  $("ed-side").hidden = false;
  return answer;
}

async function startEditing(doc) {
  await drawEdited(editable(doc));
  showEdPlayers();
}

// An edit: its refusal stays in view until an edit is made (the page does not move under the pointer meanwhile).
async function edGuarded(work) {
  window.boardState.busy++;
  try {
    await work();
    showError("", "ed-error");
  } catch (err) {
    showError(err.message, "ed-error");
  } finally {
    window.boardState.busy--;
  }
}

async function edit(change) {
  const next = JSON.parse(JSON.stringify(edDoc));
  change(next);
  await drawEdited(next);
}

function edClick(event) {
  const el = event.target.closest("[data-target]");
  if (!el || !edDoc || !el.classList.contains("editable")) return;
  const [kind, id] = el.dataset.target.split(":");
  const items = { crossing: crossingChanges, space: spaceChanges, building: buildingChanges }[kind](Number(id));
  showMenu(items.map((item) => ({ ...item, className: "menu-item",
                                  click: () => edGuarded(() => edit(item.change)) })),
           event.pageX, event.pageY);
}

const seats = () => edDoc.players.map((_, p) => p);

function crossingChanges(c) {
  const name = crossingName(c);
  const set = (f) => (doc) => {
    doc.crossings = doc.crossings || {};
    const x = doc.crossings[name] || { citizens: {}, intersection: null };
    f(x);
    if (!x.citizens.bottom && x.intersection === null) delete doc.crossings[name];
    else doc.crossings[name] = x;
  };
  const group = `Citizens on ${name} (top/bottom)`;
  const items = [{ group, label: "none", change: set((x) => { x.citizens = {}; }) }];
  for (const k of "WMU") {
    items.push({ group, label: k, change: set((x) => { x.citizens = { bottom: CLASS_WORDS[k] }; }) });
  }
  for (const t of "WMU") {
    for (const b of "WMU") {
      items.push({ group, label: `${t}/${b}`,
                   change: set((x) => { x.citizens = { bottom: CLASS_WORDS[b], top: CLASS_WORDS[t] }; }) });
    }
  }
  const inter = `Intersection on ${name}`;
  items.push({ group: inter, label: "none", change: set((x) => { x.intersection = null; }) });
  for (const p of seats()) items.push({ group: inter, label: `P${p}'s`, change: set((x) => { x.intersection = p; }) });
  return items;
}

function spaceChanges(i) {
  const name = edNames.spaces[i];
  const set = (f) => (doc) => {
    doc.streets = doc.streets || {};
    const x = doc.streets[name] || { owner: null, passenger: null };
    f(x);
    if (x.owner === null && x.passenger === null) delete doc.streets[name];
    else doc.streets[name] = x;
  };
  const tile = `Street tile on ${name}`, passenger = `Passenger on ${name}`, tram = `Tram on ${name}`;
  const items = [{ group: tile, label: "none", change: set((x) => { x.owner = null; }) }];
  for (const p of seats()) items.push({ group: tile, label: `P${p}'s`, change: set((x) => { x.owner = p; }) });
  items.push({ group: passenger, label: "none", change: set((x) => { x.passenger = null; }) });
  for (const p of seats()) items.push({ group: passenger, label: `P${p}'s`, change: set((x) => { x.passenger = p; }) });
  items.push({ group: tram, label: "none", change: (doc) => {
    for (const pl of doc.players) if (pl.tram === name) pl.tram = null;
  } });
  for (const p of seats()) {
    items.push({ group: tram, label: `P${p}'s`, change: (doc) => { doc.players[p].tram = name; } });
  }
  return items;
}

function buildingChanges(i) {
  const name = edNames.buildings[i];
  const set = (f) => (doc) => {
    doc.buildings = doc.buildings || {};
    const x = doc.buildings[name] || { level: null, markers: [] };
    f(x);
    if (x.level === null) delete doc.buildings[name];
    else doc.buildings[name] = x;
  };
  const group = `Building on ${name}`;
  const levels = /^(NE|SW)/.test(name) ? ["L1", "L2", "L3", "CORNER"] : ["L1", "L2", "L3"];
  const items = [{ group, label: "none", change: set((x) => { x.level = null; }) }];
  for (const l of levels) {
    items.push({ group, label: l === "CORNER" ? "Corner" : `Level ${l[1]}`, change: set((x) => { x.level = l; }) });
  }
  const markers = `Markers on ${name} (bottom first)`;
  items.push({ group: markers, label: "none", change: set((x) => { x.markers = []; }) });
  for (const p of seats()) {
    items.push({ group: markers, label: `add P${p}'s`, change: set((x) => { x.markers = [...x.markers, p]; }) });
  }
  return items;
}

// Each player's resources, score, tracks and hand (a hidden hand as its size), and who is to move: a field whose
// change the reader refuses goes back to the position's value.
const PLAYER_FIELDS = [["coins", "Coins"], ["cloth", "Cloth"], ["score", "VP"], ["cerda", "Cerdà track"],
                       ["sagrada", "Sagrada track"]];

function showEdPlayers() {
  const box = $("ed-players");
  box.innerHTML = "";
  const toMove = $("ed-to-move");
  toMove.innerHTML = "";
  for (const p of seats()) toMove.add(new Option(`P${p}`, String(p)));
  toMove.value = String(edDoc.to_move);
  edDoc.players.forEach((pl, p) => {
    const part = document.createElement("fieldset");
    part.className = "ed-player";
    const legend = document.createElement("legend");
    legend.textContent = `P${p}` + (edDoc.viewpoint === p ? " (you)" : "");
    legend.style.color = PLAYER_COLOURS[p];
    part.appendChild(legend);
    const fields = PLAYER_FIELDS.map(([key, label]) => [label, (doc) => doc.players[p][key] ?? 0, (doc, v) => {
      doc.players[p][key] = v;
      if (key === "score") delete doc.players[p].vp_by_source;     // the new score, not split by source
    }]);
    if (pl.hand && pl.hand.hidden !== undefined) {
      fields.push(["citizens (hidden)", (doc) => doc.players[p].hand.hidden, (doc, v) => {
        doc.players[p].hand = { hidden: v };
      }]);
    } else {
      for (const k of "WMU") {
        const get = (doc) => (doc.players[p].hand || {})[CLASS_WORDS[k]] || 0;
        fields.push([`${CLASS_NAMES[k]} in hand`, get, (doc, v) => {
          doc.players[p].hand = { ...(doc.players[p].hand || {}), [CLASS_WORDS[k]]: v };
        }]);
      }
    }
    for (const [label, get, put] of fields) {
      const field = document.createElement("label");
      field.textContent = label;
      const input = document.createElement("input");
      input.type = "number";
      input.min = "0";
      input.value = get(edDoc);
      input.dataset.seat = p;
      input.dataset.field = label;
      input.addEventListener("change", () => {
        if (Number(input.value) === get(edDoc)) return;              // (a refused value put back)
        edGuarded(async () => {
          try {
            await edit((doc) => put(doc, Number(input.value)));
          } catch (err) {
            input.value = get(edDoc);
            throw err;
          }
        });
      });
      field.appendChild(input);
      part.appendChild(field);
    }
    box.appendChild(part);
  });
}

function wireEditor() {
  const seatOptions = () => {
    const players = Number($("ed-players-count").value);
    for (const option of $("ed-seat").options) option.disabled = Number(option.value) >= players;
    if (Number($("ed-seat").value) >= players) $("ed-seat").value = "0";
  };
  $("ed-players-count").addEventListener("change", seatOptions);
  seatOptions();
  $("ed-fresh").addEventListener("click", () => guarded(async () => {
    const answer = await api("POST", "/api/positions/new", { players: Number($("ed-players-count").value),
                                                             seat: Number($("ed-seat").value),
                                                             seed: Number($("ed-seed").value || 0),
                                                             edition: $("opt-edition").value || undefined });
    await startEditing(answer.position);
  }, "ed-error"));
  $("ed-current").addEventListener("click", () => guarded(async () => {
    await startEditing(await api("GET", `/api/games/${game.id}/position`));
  }, "ed-error"));
  $("ed-board").addEventListener("click", edClick);
  $("ed-to-move").addEventListener("change", () => edGuarded(async () => {
    try {
      await edit((doc) => { doc.to_move = Number($("ed-to-move").value); });
    } catch (err) {
      $("ed-to-move").value = String(edDoc.to_move);
      throw err;
    }
  }));
  $("ed-save").addEventListener("click", () => download("barcelona-position.json", edDoc));
  $("ed-play").addEventListener("click", () => guarded(async () => {
    const seat = edDoc.viewpoint ?? Number($("ed-seat").value);
    switchTab("game");
    await guarded(() => startGame({ mode: "table", position: edDoc, seat }));
  }, "ed-error"));
}

// ------------------------------------------------------------------------------------------------- wiring
function switchTab(name) {
  hideMenu();
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === name);
  $("page-game").hidden = name !== "game";
  $("page-review").hidden = name !== "review";
  $("page-editor").hidden = name !== "editor";
  $("page-board").hidden = name !== "board";
  if (name === "review" && review) drawGraph(review);
  if (name === "board") guarded(openBoardForm, "bf-error");     // board_form.js
}

let resizeTimer = null;
function redrawOnResize() {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (hints.length) drawHints();
    if (review && !$("page-review").hidden) drawGraph(review);
  }, 150);
}

function showLevelNote() {        // what the chosen level was measured to do (the option's title)
  const option = $("opt-iterations").selectedOptions[0];
  $("level-note").textContent = option ? option.title : "";
}

window.addEventListener("DOMContentLoaded", () => {
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => switchTab(b.dataset.tab));
  $("new-game").addEventListener("submit", (e) => { e.preventDefault(); guarded(() => startGame()); });
  $("opt-mode").addEventListener("change", showModeFields);
  $("opt-players").addEventListener("change", showModeFields);
  $("opt-iterations").addEventListener("change", showLevelNote);
  showModeFields();
  showLevelNote();
  guarded(buildSetupFields);
  $("board").addEventListener("click", boardClick);
  $("board").addEventListener("mouseover", boardHover);
  $("proposal-go").addEventListener("click", confirmProposal);
  $("order-cancel").addEventListener("click", () => { order = null; showOrder(); });
  document.addEventListener("keydown", (e) => {      // Enter confirms a proposal (not inside a field or a button)
    if (e.key !== "Enter" || $("page-game").hidden || $("proposal").hidden) return;
    if (e.target.closest && e.target.closest("input, select, textarea, button, summary, a")) return;
    e.preventDefault();
    confirmProposal();
  });
  wireEditor();
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
    const rounds = gameRounds(game);
    await guarded(() => reviewRecord(record, rounds), "review-error");
  }));
  $("load-file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    if (file) guarded(() => loadFile(file));
    e.target.value = "";
  });
  $("placement-go").addEventListener("click", () => act(() => play({ move: $("placement-text").value })));
  $("placement-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter") act(() => play({ move: $("placement-text").value }));
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") hideMenu(); });
  document.addEventListener("keydown", reviewKeys);
  window.addEventListener("resize", redrawOnResize);
  $("review-form").addEventListener("submit", (e) => {
    e.preventDefault();
    guarded(startReview, "review-error");
  });
  $("review-first").addEventListener("click", () => reviewStep(-Infinity));
  $("review-prev").addEventListener("click", () => reviewStep(-1));
  $("review-next").addEventListener("click", () => reviewStep(1));
  $("review-last").addEventListener("click", () => reviewStep(Infinity));
});
