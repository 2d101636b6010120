// The library's computer analysis on the page: the Analyse button, the evaluation graph (an SVG
// drawn here: nothing fetched from elsewhere), the moves marked by their quality, each side's
// accuracy, and the reviewed move with the computer's choice on the board's LEDs. It follows the
// library's viewer (library.js's onViewer).
import { $, ui } from "./ui.js";
import { onWords, w, wf } from "./words.js";
import { post } from "./requests.js";
import { onViewer } from "./library.js";
import { onSelect } from "./tabs.js";
import { playerName, sanIn } from "./said.js";

const SVG = "http://www.w3.org/2000/svg";
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const JUDGEMENTS = ["inaccuracy", "mistake", "blunder"];
const WIDTH = 600;          // the graph's own units: 600 x 100, scaled to the page's width
const POLL_MS = 1000;       // while a game is being analysed, its progress is asked for this often

const view = { id: null, game: null, ply: 0, poll: null, shown: null };
const reviewing = [];   // what hears the viewer's game as this script has it, its analysis once done (training.js)
export function onReview(fn) { reviewing.push(fn); }

// -- the parts of the page this script adds ------------------------------------------------------
function build() {
  const viewer = $("#viewer");
  if (!viewer || $("#analysis")) return;
  const box = document.createElement("section");
  box.id = "analysis";
  box.className = "analysis";
  box.innerHTML = `
    <p class="analysis-actions"><button type="button" id="analyse" class="small" hidden></button>
      <span id="analysis-status" class="hint" role="status"></span></p>
    <svg id="eval-graph" class="eval-graph" viewBox="0 0 ${WIDTH} 100" role="img" hidden></svg>
    <p id="move-note" class="move-note" hidden></p>
    <table id="accuracy" class="accuracy" hidden></table>
    <p id="review-legend" class="hint" hidden></p>`;
  viewer.querySelector(".viewer-nav").after(box);
  $("#analyse").addEventListener("click", analyse);
  $("#eval-graph").addEventListener("click", pickOnGraph);

  const list = $("#library");
  const setting = document.createElement("label");
  setting.className = "check analysis-setting";
  setting.innerHTML = `<input type="checkbox" id="analyse-when-idle"> <span></span>`;
  list.before(setting);
  $("#analyse-when-idle").addEventListener("change", async (event) => {
    try {
      await post("/api/analysis/settings", { when_idle: event.target.checked });
    } catch (_) { event.target.checked = !event.target.checked; }   // (the message says why)
  });
  for (const tab of document.querySelectorAll(".tabs [data-tab]")) {
    tab.addEventListener("click", () => {
      words();
      if (tab.dataset.tab === "library") loadSetting();
    });
  }
  words();
}

// A judged move in words: "Mistake: Nf3 was best".
function judged(m) {
  const judgement = w(m.judgement, m.judgement);
  if (!m.best_san) return judgement;
  return wf("move_judged", { judgement, best: wf("best_was", { san: sanIn(m.best_san) }) });
}

function words() {
  const setting = document.querySelector(".analysis-setting span");
  if (setting) setting.textContent = w("analyse_when_idle");
  const button = $("#analyse");
  if (button) button.textContent = w("analyse");
  const legend = $("#review-legend");
  if (legend) legend.textContent = w("review_leds");
  const graph = $("#eval-graph");
  if (graph) graph.setAttribute("aria-label", w("eval_graph"));
}

async function loadSetting() {
  try {
    const data = await (await fetch("/api/games", { cache: "no-store" })).json();
    $("#analyse-when-idle").checked = Boolean(data.analysis && data.analysis.when_idle);
  } catch (_) { /* the box stays as it was */ }
}

// -- the viewer's game -------------------------------------------------------------------------------
onViewer(({ id, game, ply }) => {
  build();
  if (id !== view.id || !view.game || view.game.uci.length !== game.uci.length || game.analysis) view.game = game;
  view.id = id;
  view.ply = ply;
  words();
  render();
  if (analysing(view.game)) follow();
});

function analysing(game) {
  return Boolean(game && game.analysing && ["queued", "running"].includes(game.analysing.state));
}

async function analyse() {
  const id = view.id;
  try {
    const answer = await post(`/api/games/${encodeURIComponent(id)}/analysis`, {});
    if (view.id === id) {
      view.game = { ...view.game, analysing: answer.analysing };
      render();
      follow();
    }
  } catch (_) { /* the message says why */ }
}

// Ask for the game again while it is being analysed, until its analysis is there (or failed).
function follow() {
  clearTimeout(view.poll);
  const id = view.id;
  view.poll = setTimeout(async () => {
    if (view.id !== id) return;
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(id)}`, { cache: "no-store" });
      if (r.ok && view.id === id) {
        view.game = await r.json();
        render();
        if (view.game.analysis) {   // the download is now the analysed PGN: so is the text shown
          const pgn = await (await fetch(`/games/${encodeURIComponent(id)}.pgn`, { cache: "no-store" })).text();
          if (view.id === id) $("#viewer-pgn").textContent = pgn;
        }
      }
    } catch (_) { /* tried again below */ }
    if (view.id === id && analysing(view.game)) follow();
  }, POLL_MS);
}

// -- drawing --------------------------------------------------------------------------------------------
function render() {
  const game = view.game;
  if (!game || !$("#analysis")) return;
  const review = game.analysis;
  const status = game.analysing;
  const button = $("#analyse");
  button.hidden = Boolean(review) || game.in_progress || !game.uci.length || analysing(game);
  $("#analysis-status").textContent = !status ? ""
    : status.state === "queued" ? w("analysis_queued")
    : status.state === "running" ? wf("analysing", { done: status.done, total: status.total })
    : w("analysis_failed");
  $("#analysis-status").title = status && status.error ? status.error : "";
  drawGraph(review);
  drawAccuracy(review);
  noteMove(review);
  markMoves(review);
  $("#review-legend").hidden = !review;
  const move = view.ply > 0 ? game.uci[view.ply - 1] : null;
  const best = review && view.ply > 0 ? review.moves[view.ply - 1].best : null;
  showOnBoard(move, best);
  for (const fn of reviewing) fn(view.id, game);
}

function x(ply, plies) { return plies ? (ply * WIDTH) / plies : 0; }
function y(win) { return 100 - win; }

function svg(name, attributes) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
  return el;
}

function drawGraph(review) {
  const graph = $("#eval-graph");
  graph.textContent = "";
  graph.toggleAttribute("hidden", !review);   // (an SVG element has no hidden property)
  if (!review) return;
  const wins = [review.start.win, ...review.moves.map((m) => m.win)];
  const plies = review.moves.length;
  graph.dataset.plies = String(plies);
  graph.append(svg("rect", { x: 0, y: 0, width: WIDTH, height: 100, class: "black-side" }));
  const points = wins.map((win, ply) => `${x(ply, plies).toFixed(1)},${y(win).toFixed(2)}`);
  graph.append(svg("polygon", { points: `0,100 ${points.join(" ")} ${WIDTH},100`, class: "white-side" }));
  graph.append(svg("line", { x1: 0, y1: 50, x2: WIDTH, y2: 50, class: "middle" }));
  review.moves.forEach((m, i) => {
    if (!m.judgement) return;
    const dot = svg("circle", { cx: x(i + 1, plies), cy: y(m.win), r: 3.5, class: `judged ${m.judgement}` });
    dot.dataset.ply = String(i + 1);
    dot.dataset.judgement = m.judgement;
    graph.append(dot);
  });
  const marker = svg("line", { x1: x(view.ply, plies), y1: 0, x2: x(view.ply, plies), y2: 100, class: "now" });
  marker.dataset.ply = String(view.ply);
  graph.append(marker);
}

// A click on the graph goes to the move there: the viewer's own move buttons do the going.
function pickOnGraph(event) {
  const graph = $("#eval-graph");
  const plies = Number(graph.dataset.plies || 0);
  const box = graph.getBoundingClientRect();
  if (!plies || !box.width) return;
  const ply = Math.max(0, Math.min(plies, Math.round(((event.clientX - box.left) / box.width) * plies)));
  if (ply === 0) $("#v-first").click();
  else {
    const buttons = document.querySelectorAll("#viewer-moves button.san");
    if (buttons[ply - 1]) buttons[ply - 1].click();
  }
}

function drawAccuracy(review) {
  const table = $("#accuracy");
  table.textContent = "";
  table.hidden = !review || !review.accuracy;
  if (table.hidden) return;
  const game = view.game;
  const names = [playerName(game.white, 0), playerName(game.black, 1)];
  const head = table.insertRow();
  const plurals = { inaccuracy: w("inaccuracies"), mistake: w("mistakes"), blunder: w("blunders") };
  for (const text of ["", w("accuracy"), ...JUDGEMENTS.map((j) => plurals[j])]) {
    const th = document.createElement(text ? "th" : "td");   // (the corner heads nothing: an empty header is a fault)
    th.textContent = text;
    head.appendChild(th);
  }
  const whiteFirst = !(game.start_fen && game.start_fen.split(" ")[1] === "b");
  ["white", "black"].forEach((side, index) => {
    const row = table.insertRow();
    row.dataset.side = side;
    const counts = JUDGEMENTS.map((j) => review.moves.filter((m, i) => m.judgement === j
      && (i % 2 === 0) === (whiteFirst === (side === "white"))).length);
    const accuracy = `${review.accuracy[side].toFixed(1)} %`;
    for (const [cell, text] of [["name", names[index]], ["accuracy", accuracy], ...JUDGEMENTS.map((j, k) => [j, counts[k]])]) {
      const td = row.insertCell();
      td.dataset.cell = cell;
      td.textContent = String(text);
    }
  });
}

function scoreText(m) {
  if (m.mate !== null && m.mate !== undefined) return m.mate === 0 ? "#" : `#${m.mate}`;
  const pawns = m.cp / 100;
  return (pawns > 0 ? "+" : "") + pawns.toFixed(2);
}

function noteMove(review) {
  const note = $("#move-note");
  const m = review && view.ply > 0 ? review.moves[view.ply - 1] : null;
  note.hidden = !m;
  note.dataset.judgement = m && m.judgement ? m.judgement : "";
  if (!m) { note.textContent = ""; return; }
  note.textContent = `${sanIn(m.san)}${m.judgement ? MARKS[m.judgement] : ""} (${scoreText(m)})${m.judgement ? " — " + judged(m) : ""}`;
}

function markMoves(review) {
  const buttons = document.querySelectorAll("#viewer-moves .san:not(.gap)");
  buttons.forEach((button, i) => {
    const m = review ? review.moves[i] : null;
    button.querySelector(".mark")?.remove();
    button.classList.remove(...JUDGEMENTS.map((j) => `q-${j}`));
    if (!m || !m.judgement) return;
    button.classList.add(`q-${m.judgement}`);
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.textContent = MARKS[m.judgement];
    button.appendChild(mark);
    button.title = judged(m);
  });
}

// The reviewed move and the computer's choice on the board's LEDs (the board says whether it can:
// never during a game). Silent: a page without the pairing code just does not light them.
function showOnBoard(played, best) {
  const key = `${played}|${best}`;
  if (view.shown === key) return;
  view.shown = key;
  fetch("/api/board/show", {
    method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin",
    body: JSON.stringify({ played, best }),
  }).catch(() => { view.shown = null; });
}

build();
onWords(words);
// Away from the library (a tab clicked, or a position set up, a training begun), the board shows its own LEDs again.
for (const name of ["game", "new", "settings"]) onSelect(name, () => showOnBoard(null, null));
