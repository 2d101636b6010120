// The simulator's hand (a board without sensors: `echiquier sim`): click a piece to lift it, a
// square to put it down, or drag it; the hand holds two pieces, one chosen to go down next, and
// takes a piece from the box beside the board (a position set up by hand), or puts one in it. The
// server reads each click on the hand as it is then (/api/sim/...), in the order they were made.
import { $, ui, onRender } from "./ui.js";
import { onWords, w, wf } from "./words.js";
import { post } from "./requests.js";
import { colourOf, pieceSvg } from "./pieces.js";

let queue = Promise.resolve();   // the hand's requests, one after the other
let handIndex = null;            // the held piece chosen to go down next (null: the server's choice)
let pointer = null;              // a press on the board: a click, or a drag once it leaves its square

export function simSend(path, body) {
  queue = queue.then(() => post(path, body)).catch(() => {});
  return queue;
}

// The held piece chosen to go down, once: the next put-down is the server's choice again.
export function takeIndex() {
  const i = handIndex;
  handIndex = null;
  return i;
}

function squareAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const sq = el && el.closest("#board [data-square]");
  return sq ? sq.dataset.square : null;
}

function physicalPiece(name) {
  const s = ui.state;
  return !!(s && s.sim && s.sim.pieces[name]);
}

// A click is the server's to read (lift the piece there, put the held one down, or take the piece
// there with it: /api/sim/click), on the hand as it is when the click arrives: the page's copy may
// lag a websocket update behind, and a quick second click read on it lifted a piece already in
// the hand (issue 26.12). A drag lifts its piece once the pointer leaves the square.
function onPointerDown(event) {
  if (!ui.state || !ui.state.sim || event.button > 0) return;
  const name = squareAt(event.clientX, event.clientY);
  if (!name) return;
  event.preventDefault();
  pointer = { id: event.pointerId, from: name, moved: false, lifted: false, last: name };
}

function onPointerMove(event) {
  const p = pointer;
  if (!p || p.id !== event.pointerId) return;
  const name = squareAt(event.clientX, event.clientY);
  if (!name || name === p.last) return;
  if (!p.moved) {                       // a drag: its piece leaves the square
    p.moved = true;
    p.lifted = physicalPiece(p.from);
    if (p.lifted) simSend("/api/sim/lift", { square: p.from });
  }
  p.last = name;
  if (p.lifted && !physicalPiece(name)) simSend("/api/sim/pass", { squares: [name] });
}

function onPointerUp(event) {
  const p = pointer;
  if (!p || p.id !== event.pointerId) return;
  pointer = null;
  const name = squareAt(event.clientX, event.clientY);
  if (!p.moved) {
    simSend("/api/sim/click", { square: p.from, index: takeIndex() });
  } else if (p.lifted && name) {
    simSend("/api/sim/place", { square: name, index: takeIndex() });
  }
}

function renderSim(s) {
  const box = $("#sim");
  box.hidden = !s.sim;
  document.body.classList.toggle("simulator", !!s.sim);
  if (!s.sim) return;
  const hand = $("#hand");
  hand.textContent = "";
  if (handIndex !== null && handIndex >= s.sim.hand.length) handIndex = null;
  s.sim.hand.forEach((h, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "held " + colourOf(h.piece);
    b.innerHTML = pieceSvg(h.piece);
    b.title = h.from ? wf("sim_held", { square: h.from }) : w("sim_held_box");
    b.dataset.piece = h.piece;
    b.setAttribute("aria-pressed", handIndex === i ? "true" : "false");
    b.addEventListener("click", () => { handIndex = handIndex === i ? null : i; renderSim(ui.state); });
    hand.appendChild(b);
  });
  if (!s.sim.hand.length) hand.textContent = w("sim_empty");
  $("#aside").disabled = !s.sim.hand.length;
  // (the box only while a position is set up by hand: on a phone the board, clocks and status stay in view)
  $(".box-row").hidden = !(s.setup && s.setup.steps && s.setup.steps.length);
}

// The box beside the board: a button per piece (white, then black), named for a screen reader.
const BOX = "KQRBNPkqrbnp";
function buildBox() {
  const box = $("#box");
  for (const letter of BOX) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "held " + colourOf(letter);
    b.innerHTML = pieceSvg(letter);
    b.dataset.piece = letter;
    b.addEventListener("click", () => simSend("/api/sim/click", { box: letter }));
    box.appendChild(b);
  }
}
function nameBox() {
  for (const b of $("#box").children) {
    const text = w(`box_take_${colourOf(b.dataset.piece)}${b.dataset.piece.toLowerCase()}`);
    b.setAttribute("aria-label", text);
    b.title = text;
  }
}

buildBox();
nameBox();
onWords(nameBox);
onRender(renderSim);
$("#board").addEventListener("pointerdown", onPointerDown);
window.addEventListener("pointermove", onPointerMove);
window.addEventListener("pointerup", onPointerUp);
window.addEventListener("pointercancel", () => { pointer = null; });
$("#aside").addEventListener("click", () => simSend("/api/sim/aside", { index: takeIndex() }));
$("#setup").addEventListener("click", () => simSend("/api/sim/setup", {}));
