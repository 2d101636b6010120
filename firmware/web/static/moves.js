// A list of moves, numbered from the game's start position: the game's (game.js) and the
// library's recorded game, whose moves are buttons that go to the move (library.js).

// The first move's number, and whether Black plays it, from a start position's FEN.
export function startOf(fen) {
  if (!fen) return { number: 1, black: false };
  const parts = fen.split(" ");
  return { number: Number(parts[5]) || 1, black: parts[1] === "b" };
}

export function renderMoves(list, sans, start, current, onPick) {
  list.textContent = "";
  let number = start.number;
  let li = null;
  sans.forEach((text, i) => {
    const ply = i + (start.black ? 1 : 0);
    if (ply % 2 === 0 || li === null) {
      li = document.createElement("li");
      const n = document.createElement("span");
      n.className = "num";
      n.textContent = number + ".";
      li.appendChild(n);
      if (ply % 2 === 1) {
        const gap = document.createElement("span");
        gap.className = "san gap";
        li.appendChild(gap);
      }
      list.appendChild(li);
    }
    const m = document.createElement(onPick ? "button" : "span");
    m.className = "san " + (ply % 2 === 0 ? "w" : "b");
    m.textContent = text;
    if (onPick) {
      m.type = "button";
      m.addEventListener("click", () => onPick(i + 1));
    }
    if (current === i + 1) m.classList.add("current");
    li.appendChild(document.createTextNode(" "));
    li.appendChild(m);
    if (ply % 2 === 1) number++;
  });
  // The list scrolls to its last move by itself; the page never scrolls (on a phone the board,
  // both clocks and the status stay in view after a move).
  if (!onPick) list.scrollTop = list.scrollHeight;
}
