// A move recorded wrong: the other moves that explain the board, one click puts it right (issue 11.6).
import { $, ui, onRender } from "./ui.js";
import { act } from "./requests.js";

function renderCorrections(s) {
  const box = $("#corrections");
  for (const old of box.querySelectorAll("button")) old.remove();
  const list = s.corrections || [];
  for (const c of list) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.correct = c.uci;
    b.textContent = ui.lang === "fr" ? c.san_fr : c.san;
    b.addEventListener("click", () => act("/api/game/correct", { move: c.uci }));
    box.appendChild(b);
  }
  box.hidden = !list.length;
}

onRender(renderCorrections);
