// A position set up by hand, the board leading (issue 35): the steps left in the game view, the
// first one (the one the board lights) marked, each said in the page's language; and the requests
// that start one (POST /api/position/setup): a FEN typed in the new game's view, or the library's
// game at the move shown (library.js asks). A game in progress is abandoned only once confirmed.
import { $, ui, onRender } from "./ui.js";
import { w, wf } from "./words.js";
import { post, showMessage } from "./requests.js";
import { arm, disarm } from "./confirm.js";
import { selectTab } from "./tabs.js";
import { said } from "./said.js";

function renderSetup(s) {
  const steps = (s.setup && !s.setup.done && s.setup.steps) || [];
  const list = $("#setup-steps");
  $("#setup-guide").hidden = !steps.length;
  list.textContent = "";
  if (!steps.length) return;
  const left = steps.length === 1 ? "setup_left_one" : "setup_left";
  $("#setup-left").textContent = wf(left, { n: steps.length });
  steps.forEach((step, i) => {
    const li = document.createElement("li");
    li.textContent = said(step.said);
    // what the step is, for a script that reads the page (the tests): the piece, from, to ("": the box)
    li.dataset.piece = step.piece;
    li.dataset.from = step.from || "";
    li.dataset.to = step.to || "";
    if (i === 0) {
      li.className = "next";
      li.setAttribute("aria-current", "step");
    }
    list.appendChild(li);
  });
}

// The next game from ``fen``, the board leading the hand there; ``button`` asks to confirm first
// when it abandons a game in progress. True once the board took it.
export async function setUpPosition(fen, button) {
  const s = ui.state;
  const inProgress = s && s.started && s.result === "*" && (s.moves.san || []).length > 0;
  if (inProgress && button.dataset.armed !== "1") {
    arm(button, w("abandon_confirm"), 6000);
    return false;
  }
  disarm(button);
  try {
    await post("/api/position/setup", { fen });
  } catch (_) {
    return false;   // (the refusal is shown: a FEN the board cannot set up, an online game)
  }
  selectTab("game");
  showMessage(w("msg_setup"));
  return true;
}

onRender(renderSetup);
const form = $("#setup-form");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await setUpPosition(form.elements.fen.value.trim(), form.querySelector("[type=submit]"))) form.reset();
});
