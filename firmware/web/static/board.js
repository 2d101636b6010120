// The board: its squares drawn from the page state (the pieces, the sensors, the LEDs, an app's
// blinking lights), each named for a screen reader, seen from White's side or Black's (the Flip
// button, or the board playing Black online).
import { $, ui, onRender, render } from "./ui.js";
import { onWords, w } from "./words.js";
import { colourOf, pieceSvg } from "./pieces.js";

export const FILES = "abcdefgh";
export const NAMES = [];   // the squares by index: a1 = 0 .. h8 = 63
for (let r = 0; r < 8; r++) for (let f = 0; f < 8; f++) NAMES.push(FILES[f] + (r + 1));

export const squares = {};   // the page's own board: each square's element by name
const view = {
  flipped: localStorage.getItem("echiquier.flipped") === "1",   // the Flip button
  autoFlip: false,   // the board plays Black online: seen from Black's side
  focus: "e2",       // the square that has the keyboard's focus on the board
};

export function flipped() { return view.flipped !== view.autoFlip; }

// The pieces of a FEN's placement by square index (null where empty).
export function placement(fen) {
  const out = new Array(64).fill(null);
  if (!fen) return out;
  const rows = fen.split(" ")[0].split("/");
  for (let i = 0; i < 8 && i < rows.length; i++) {
    const rank = 7 - i;
    let file = 0;
    for (const ch of rows[i]) {
      if (ch >= "1" && ch <= "8") file += Number(ch);
      else { if (file < 8) out[rank * 8 + file] = ch; file++; }
    }
  }
  return out;
}

// The LEDs are dimmed by the brightness setting; the page draws their hue at full strength.
function displayColour(led) {
  const v = parseInt(led.slice(1), 16);
  const r = v >> 16, g = (v >> 8) & 255, b = v & 255;
  const top = Math.max(r, g, b);
  if (!top) return led;
  const k = 255 / top;
  const hex = (x) => Math.min(255, Math.round(x * k)).toString(16).padStart(2, "0");
  return `#${hex(r)}${hex(g)}${hex(b)}`;
}

// A grid of 8 rows (the ranks, as seen) of 8 cells; each square is named for a screen reader
// ("e4, white pawn") and, on the page's own board, focusable: one at a time (the arrows move it).
export function buildBoard(container, cells, interactive) {
  container.textContent = "";
  container.setAttribute("role", "grid");
  const turned = flipped() && interactive;
  for (let row = 0; row < 8; row++) {
    const line = document.createElement("div");
    line.className = "rank-row";
    line.setAttribute("role", "row");
    container.appendChild(line);
    for (let col = 0; col < 8; col++) {
      const rank = turned ? row : 7 - row;
      const file = turned ? 7 - col : col;
      const sq = rank * 8 + file;
      const el = document.createElement("div");
      el.className = "sq " + ((file + rank) % 2 ? "light" : "dark");
      el.dataset.square = NAMES[sq];
      el.dataset.led = "";
      el.setAttribute("role", "gridcell");
      const piece = document.createElement("span");
      piece.className = "piece";
      el.appendChild(piece);
      if (rank === (turned ? 7 : 0)) {
        const c = document.createElement("span"); c.className = "coord file"; c.textContent = FILES[file];
        c.setAttribute("aria-hidden", "true"); el.appendChild(c);
      }
      if (file === (turned ? 7 : 0)) {
        const c = document.createElement("span"); c.className = "coord rank"; c.textContent = rank + 1;
        c.setAttribute("aria-hidden", "true"); el.appendChild(c);
      }
      if (interactive) el.tabIndex = NAMES[sq] === view.focus ? 0 : -1;
      el.setAttribute("aria-label", squareLabel(NAMES[sq], null, ""));
      line.appendChild(el);
      cells[NAMES[sq]] = el;
    }
  }
}

// The page's own board built again, as it is now seen.
function rebuild() {
  $(".play").classList.toggle("flipped", flipped());
  for (const name of Object.keys(squares)) delete squares[name];
  buildBoard($("#board"), squares, true);
}

// A square as a screen reader says it, in the page's language: "e4, white pawn", "e4, empty",
// "e4, empty, expected: white pawn" (the game has a piece there that the board lacks).
function squareLabel(name, symbol, kind) {
  const words = ui.words && ui.words.squares && ui.words.squares[ui.lang];
  if (!words) return name;   // (until the words come)
  const fill = (key, piece) => words[key].replace("{square}", name).replace("{piece}", piece || "");
  if (!symbol) return fill("empty");
  if (symbol === "?") return fill("unknown");
  return fill(kind === "ghost" ? "expected" : "piece", words.pieces[symbol]);
}

export function setPiece(el, symbol, kind) {
  const span = el.firstChild;
  const shown = symbol || "";
  if (span.dataset.shown !== shown) {
    span.dataset.shown = shown;
    if (!symbol) span.textContent = "";
    else if (symbol === "?") span.textContent = "\u25CF";
    else span.innerHTML = pieceSvg(symbol);
  }
  const cls = "piece" + (symbol ? " " + (symbol === "?" ? "unknown" : colourOf(symbol)) : "") + (kind ? " " + kind : "");
  if (span.className !== cls) span.className = cls;
  el.dataset.piece = symbol || "";
  const label = squareLabel(el.dataset.square, symbol, kind);
  if (el.getAttribute("aria-label") !== label) el.setAttribute("aria-label", label);
}

function renderBoard(s) {
  $("#board").dataset.expected = s.expected_move || "";
  const expected = placement(s.fen);
  const occupied = new Set(s.occupied);
  const lifted = new Set(s.lifted);
  const wrong = new Set(s.wrong);
  const last = new Set(s.last_move ? [s.last_move.slice(0, 2), s.last_move.slice(2, 4)] : []);
  const physical = s.sim ? s.sim.pieces : null;
  for (let i = 0; i < 64; i++) {
    const name = NAMES[i];
    const el = squares[name];
    const occ = occupied.has(name);
    const exp = expected[i];
    if (physical) {
      if (physical[name]) setPiece(el, physical[name], "");
      else if (exp) setPiece(el, exp, "ghost");
      else setPiece(el, null, "");
    } else if (occ) {
      setPiece(el, exp || "?", "");
    } else if (exp) {
      setPiece(el, exp, "ghost");
    } else {
      setPiece(el, null, "");
    }
    if (occ) el.dataset.occupied = "1"; else delete el.dataset.occupied;
    const led = s.leds[i] || "";
    if (el.dataset.led !== led) {
      el.dataset.led = led;
      if (led) el.style.setProperty("--led", displayColour(led)); else el.style.removeProperty("--led");
    }
    el.classList.toggle("lifted", lifted.has(name));
    el.classList.toggle("wrong", wrong.has(name));
    el.classList.toggle("last", last.has(name));
  }
  renderBlink(s);
}

// An app's blinking lights come once, as patterns (state.app.blink), not at every phase: the
// page plays them, one slot every slot_ms, bit 7 first; s.leds holds every square lit at all.
const blink = { timer: null, key: "", since: 0 };
function renderBlink(s) {
  const b = s.app && s.app.blink;
  const key = b ? JSON.stringify(b) : "";
  if (key === blink.key) return;
  blink.key = key;
  if (blink.timer) { clearInterval(blink.timer); blink.timer = null; }
  for (const name of NAMES) squares[name].classList.remove("led-off");
  if (!b) return;
  blink.since = performance.now();
  const step = () => {
    const bit = 0x80 >> (Math.floor((performance.now() - blink.since) / b.slot_ms) % 8);
    for (let i = 0; i < 64; i++) {
      const p = b.patterns[i];
      if (p && p !== 255) squares[NAMES[i]].classList.toggle("led-off", !(p & bit));
    }
  };
  step();
  blink.timer = setInterval(step, Math.max(b.slot_ms, 25));
}

// The board seen from Black's side while the board plays Black online (online.js says when).
export function seeFromBlack(auto) {
  if (auto === view.autoFlip) return;
  view.autoFlip = auto;
  rebuild();
}

// The keyboard's square: ``name`` takes the board's one tab stop (and the focus, unless it has it).
export function focusSquare(name, move = true) {
  if (!move && name === view.focus) return;
  const old = squares[view.focus];
  if (old) old.tabIndex = -1;
  view.focus = name;
  const el = squares[name];
  el.tabIndex = 0;
  if (move) el.focus();
}

rebuild();
onRender(renderBoard);
onWords(() => $("#board").setAttribute("aria-label", w("board_label")));
$("#flip").addEventListener("click", () => {
  view.flipped = !view.flipped;
  localStorage.setItem("echiquier.flipped", view.flipped ? "1" : "0");
  rebuild();
  render();
});
