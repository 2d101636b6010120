// The library: the games recorded on the board, each as a line to open and its PGN to download;
// the viewer steps through an opened game on a small board (the buttons, the move list, the arrow
// keys), and sets up the position at the move shown on the board (setup.js). analysis.js adds the
// computer's analysis to it (onViewer).
import { $, ui, onRender } from "./ui.js";
import { onLanguage, w, wf } from "./words.js";
import { NAMES, buildBoard, placement, setPiece } from "./board.js";
import { renderMoves, startOf } from "./moves.js";
import { onSelect, shown } from "./tabs.js";
import { said, sanIn, playerName } from "./said.js";
import { setUpPosition } from "./setup.js";

let viewer = null;         // the opened game: { id, game, ply }
let viewerSquares = null;  // the viewer's board, built when a game is first opened
let seenKey = null;        // the game in progress as the list last saw it (its moves and result)
const viewing = [];        // what hears the viewer's game and move (analysis.js)
export function onViewer(fn) { viewing.push(fn); }

async function loadLibrary() {
  let data;
  try {
    const r = await fetch("/api/games", { cache: "no-store" });
    data = await r.json();
  } catch (_) { return; }
  const list = $("#library");
  list.textContent = "";
  if (!data.games.length) {
    const li = document.createElement("li"); li.textContent = w("no_game_yet"); list.appendChild(li);
  }
  for (const g of data.games) list.appendChild(gameLine(g));
  if (viewer && data.games.some((g) => g.id === viewer.id)) openGame(viewer.id, true);
}

function gameLine(g) {
  const li = document.createElement("li");
  li.dataset.id = g.id;
  const b = document.createElement("button");
  b.type = "button";
  b.className = "game";
  const moves = Math.ceil(g.plies / 2);
  const when = `${g.date.replace(/\./g, "-")}${g.time ? " " + g.time.slice(0, 5) : ""}`;
  const count = moves === 1 ? wf("one_move", { n: moves }) : wf("n_moves", { n: moves });
  const [white, black] = [playerName(g.white, 0), playerName(g.black, 1)];
  const state = g.damaged ? w("library_damaged") : g.abandoned ? w("abandoned") : g.in_progress ? w("in_progress") : g.result;
  const notes = [g.more_games && w("library_more_games"), g.cut && w("library_cut")].filter(Boolean);
  const damaged = said(g.damaged);   // why, in the chosen language
  // A damaged file has no players nor date to show: its name and why, in plain sight (a phone shows no tooltip).
  b.textContent = damaged ? `${g.id}.pgn · ${state}: ${damaged}`
    : `${white} – ${black} · ${state} · ${count} · ${when}${notes.length ? " · " + notes.join(" · ") : ""}`;
  if (damaged || g.problem) b.title = damaged || g.problem;
  b.addEventListener("click", () => openGame(g.id));
  const a = document.createElement("a");
  a.href = `/games/${encodeURIComponent(g.id)}.pgn`;
  a.download = `${g.id}.pgn`;
  a.textContent = "PGN";
  li.append(b, " ", a);
  return li;
}

async function openGame(id, keepPly) {
  let game, pgn;
  try {
    const r = await fetch(`/api/games/${encodeURIComponent(id)}`, { cache: "no-store" });
    if (!r.ok) return;
    game = await r.json();
    pgn = await (await fetch(`/games/${encodeURIComponent(id)}.pgn`, { cache: "no-store" })).text();
  } catch (_) { return; }
  const previous = viewer && viewer.id === id ? viewer.ply : null;
  viewer = { id, game, ply: keepPly && previous !== null ? Math.min(previous, game.fens.length - 1) : game.fens.length - 1 };
  $("#viewer").hidden = false;
  const [white, black] = [playerName(game.white, 0), playerName(game.black, 1)];
  $("#viewer-title").textContent = `${white} – ${black}, ${game.date}`;
  $("#viewer-download").href = `/games/${encodeURIComponent(id)}.pgn`;
  $("#viewer-download").download = `${id}.pgn`;
  $("#viewer-pgn").textContent = pgn;
  if (!viewerSquares) {
    viewerSquares = {};
    buildBoard($("#viewer-board"), viewerSquares, false);
  }
  showPly();
}

function showPly() {
  const v = viewer;
  if (!v) return;
  const g = v.game;
  const expected = placement(g.fens[v.ply]);
  const last = v.ply > 0 ? new Set(g.last_moves[v.ply - 1]) : new Set();
  for (let i = 0; i < 64; i++) {
    const el = viewerSquares[NAMES[i]];
    setPiece(el, expected[i], "");
    el.classList.toggle("last", last.has(NAMES[i]));
  }
  $("#v-ply").textContent = `${v.ply} / ${g.fens.length - 1}`;
  const ending = said(g.ending);   // the ending in the chosen language
  $("#viewer-ending").textContent = g.abandoned ? w("viewer_abandoned")
    : g.in_progress ? w("viewer_in_progress") : `${g.result}${ending ? " — " + ending : ""}`;
  renderMoves($("#viewer-moves"), g.san.map(sanIn), startOf(g.start_fen), v.ply, (ply) => { v.ply = ply; showPly(); });
  for (const fn of viewing) fn({ id: v.id, game: g, ply: v.ply });
}

function step(delta) {
  const v = viewer;
  if (!v) return;
  const n = v.game.fens.length - 1;
  v.ply = delta === "first" ? 0 : delta === "last" ? n : Math.max(0, Math.min(n, v.ply + delta));
  showPly();
}

// The list follows the game in progress (a move, a result) while it is shown.
onRender((s) => {
  const key = `${s.moves.san.length}|${s.result}`;
  if (key === seenKey) return;
  seenKey = key;
  if (shown("library")) loadLibrary();
});
onSelect("library", () => loadLibrary());
onLanguage(() => {
  showPly();
  if (shown("library")) loadLibrary();   // the list's words too
});
$("#v-first").addEventListener("click", () => step("first"));
$("#v-prev").addEventListener("click", () => step(-1));
$("#v-next").addEventListener("click", () => step(1));
$("#v-last").addEventListener("click", () => step("last"));
// The position after the move shown (the start's at move 0), set up on the board for the next game.
$("#viewer-setup").addEventListener("click", (event) => {
  if (viewer) setUpPosition(viewer.game.fens[viewer.ply], event.currentTarget);
});
document.addEventListener("keydown", (event) => {
  if (!shown("library") || !viewer) return;
  if (event.target.closest && event.target.closest("input, select, textarea")) return;
  if (event.key === "ArrowLeft") step(-1);
  else if (event.key === "ArrowRight") step(1);
});
