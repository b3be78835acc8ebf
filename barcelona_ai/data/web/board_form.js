// The "Your board" page: the guided editor of an edition (barcelona_ai/workflows/board_editor.py) as a form. The
// server sends each part of the box drawn as the chosen edition has it, with its questions and their answers;
// the player changes what their box shows otherwise, and the server checks the whole board and plays it by name
// from then on (the Board menu of a new game offers it). Uses api(), guarded() and download() of app.js.
"use strict";

let boardForm = null;                   // the form document (/api/board-form)

async function openBoardForm() {
  if (boardForm) return;
  await loadBoardForm();
}

async function loadBoardForm(from) {
  const query = from ? `?from=${encodeURIComponent(from)}` : "";
  boardForm = await api("GET", `/api/board-form${query}`);
  const menu = $("bf-from");
  menu.innerHTML = "";
  for (const ed of boardForm.editions) {
    menu.append(new Option(ed.words, ed.name, false, ed.name === boardForm.from.name));
  }
  const box = $("bf-parts");
  box.innerHTML = "";
  boardForm.parts.forEach((p, k) => box.append(partBox(p, k + 1, boardForm.parts.length)));
}

function partBox(part, k, n) {
  const details = document.createElement("details");
  details.className = "bf-part";
  const summary = document.createElement("summary");
  summary.textContent = `${k}/${n}. ${part.part}`;
  const drawing = document.createElement("pre");
  drawing.className = "bf-drawing";
  drawing.textContent = part.drawing.join("\n");
  details.append(summary, drawing);
  for (const q of part.questions) {
    const label = document.createElement("label");
    label.className = "bf-question";
    label.textContent = q.label;
    const input = document.createElement("input");
    input.value = q.answer;
    input.dataset.key = q.key;
    input.dataset.answer = q.answer;
    input.setAttribute("aria-label", q.label);
    if (q.choices.length) {                        // narrow or wide, an action tile: offered as a list
      const list = document.createElement("datalist");
      list.id = `bf-choices-${q.key.replace(/\W+/g, "-")}`;
      for (const c of q.choices) list.append(new Option(c));
      input.setAttribute("list", list.id);
      label.append(list);
    }
    input.addEventListener("input", () => input.classList.toggle("changed", input.value !== input.dataset.answer));
    label.append(input);
    details.append(label);
  }
  return details;
}

async function makeBoard() {
  const answers = {};
  for (const input of $("bf-parts").querySelectorAll("input[data-key]")) {
    if (input.value.trim() !== input.dataset.answer) answers[input.dataset.key] = input.value;
  }
  const made = await api("POST", "/api/editions",
                         { from: $("bf-from").value, name: $("bf-name").value.trim(), answers });
  const box = $("bf-result");
  box.innerHTML = "";
  const head = document.createElement("p");
  head.textContent = `${made.words} is ready: ${made.changed.length} value${made.changed.length === 1 ? "" : "s"} ` +
    `changed from ${boardForm.from.words}. Choose it in the Board menu of a new game.`;
  const list = document.createElement("ul");
  for (const c of made.changed) {
    const li = document.createElement("li");
    li.textContent = `${c.part}: ${c.label}: ${c.answer} (was ${c.default})`;
    list.append(li);
  }
  const save = document.createElement("button");
  save.textContent = "Save the board file";
  save.addEventListener("click", () => download(`${made.name}.json`, made.document));
  box.append(head, list, save);
  box.hidden = false;
  const menu = $("opt-edition");                   // the new game's Board menu offers it
  if (![...menu.options].some((o) => o.value === made.name)) menu.append(new Option(made.words, made.name));
}

function wireBoardForm() {
  $("bf-form").addEventListener("submit", (e) => {
    e.preventDefault();
    guarded(makeBoard, "bf-error");
  });
  $("bf-from").addEventListener("change", () => guarded(() => loadBoardForm($("bf-from").value), "bf-error"));
}

window.addEventListener("DOMContentLoaded", wireBoardForm);
