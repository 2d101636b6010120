// The keyboard on the board: the arrows move the focus from square to square as the board is seen,
// Home and End go to the rank's ends, Enter or Space lifts the piece there or puts the held one
// down (the simulator's click); a click or Tab leaves the focus where it went.
import { $, ui } from "./ui.js";
import { FILES, flipped, focusSquare } from "./board.js";
import { simSend, takeIndex } from "./simhand.js";

const ARROWS = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

function onBoardKey(event) {
  const el = event.target.closest && event.target.closest("#board [data-square]");
  if (!el) return;
  const name = el.dataset.square;
  if (event.key in ARROWS) {
    event.preventDefault();
    const [dx, dy] = ARROWS[event.key];
    const sign = flipped() ? -1 : 1;
    const file = FILES.indexOf(name[0]) + dx * sign, rank = Number(name[1]) - 1 + dy * sign;
    if (file < 0 || file > 7 || rank < 0 || rank > 7) return;
    focusSquare(FILES[file] + (rank + 1));
  } else if (event.key === "Home" || event.key === "End") {
    event.preventDefault();
    const seen = flipped() !== (event.key === "End");
    focusSquare((seen ? "h" : "a") + name[1]);
  } else if ((event.key === "Enter" || event.key === " ") && ui.state && ui.state.sim) {
    event.preventDefault();
    simSend("/api/sim/click", { square: name, index: takeIndex() });
  }
}

const board = $("#board");
board.addEventListener("keydown", onBoardKey);
board.addEventListener("focusin", (event) => {
  const el = event.target.closest && event.target.closest("[data-square]");
  if (el) focusSquare(el.dataset.square, false);
});
