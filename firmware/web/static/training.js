// Training at the board (issue 35): the panel of the drill under way (a mistake from a game, or a
// puzzle: what it is, whose move to find, the verdict, the line once over, the player's puzzle
// rating and themes), its buttons (next, another puzzle, stop), and the requests that start one
// (POST /api/training/start): the library's "Learn from my mistakes" on an analysed game, and the
// new game's "Solve a puzzle". The board sets up the drill's position as setup.js shows.
import { $, ui, onRender } from "./ui.js";
import { w, wf } from "./words.js";
import { act, post, showMessage } from "./requests.js";
import { selectTab } from "./tabs.js";
import { said, sanIn } from "./said.js";
import { onReview } from "./analysis.js";

let reviewed = null;   // the library's game as analysis.js has it: { id, game }

// A puzzle's theme in words: Lichess's name ("mateIn2", "hangingPiece") said in the page's language,
// or spelt out when the catalogues lack it.
function theme(name) {
  return w(`theme_${name}`, name.replace(/([a-z])([A-Z0-9])/g, "$1 $2").toLowerCase());
}

// The line in SAN, numbered from the drill's position ("3... g6 4. Qf3 Nf6"), in the page's letters.
function numbered(sans, fen) {
  const [, turn, , , , full] = fen.split(" ");
  let number = Number(full) || 1;
  let black = turn === "b";
  return sans.map((san, i) => {
    const text = !black ? `${number}. ${sanIn(san)}` : i === 0 ? `${number}... ${sanIn(san)}` : sanIn(san);
    if (black) number += 1;
    black = !black;
    return text;
  }).join(" ");
}

function renderTraining(s) {
  const t = s.training;
  $("#training").hidden = !t;
  if (!t) return;
  $("#training").dataset.kind = t.kind;
  $("#training").dataset.verdict = t.verdict || "";
  $("#training").dataset.over = t.over ? "1" : "0";
  const what = t.kind === "puzzle"
    ? [t.puzzle_rating !== null ? wf("training_puzzle", { rating: t.puzzle_rating }) : "",
      // (the themes once it is over, as Lichess shows them: "mate in 2" before would give it away)
      t.over && t.themes.length ? wf("training_themes", { themes: t.themes.map(theme).join(", ") }) : ""].filter(Boolean).join(" · ")
    : w(`training_kind_${t.judgement || "mistake"}`);
  $("#training-what").textContent = what;
  $("#training-side").textContent = w(`training_find_${t.side}`);
  $("#training-said").textContent = said(t.said);
  $("#training-judging").hidden = !t.judging;
  $("#training-line").hidden = !(t.over && t.line.length);
  $("#training-line").textContent = t.over ? wf("training_line", { line: numbered(t.line, t.fen) }) : "";
  $("#training-left").textContent = t.left === 0 ? w("training_last")
    : wf(t.left === 1 ? "training_left_one" : "training_left", { n: t.left });
  const r = t.rating;
  $("#training-rating").hidden = !r;
  $("#training-rating").textContent = r ? wf("training_rating", { player: t.player, rating: r.rating, deviation: r.deviation })
    + (r.provisional ? ` (${w("training_provisional")})` : "") : "";
  const themes = $("#training-themes");
  const counts = Object.entries(t.themes_counts || {});
  themes.hidden = !counts.length;
  themes.textContent = "";
  for (const [name, { solved, failed }] of counts) {
    const li = document.createElement("li");
    li.dataset.theme = name;
    li.textContent = wf("training_theme_count", { theme: theme(name), solved, failed });
    themes.appendChild(li);
  }
  $("#training-next").hidden = !(t.over && t.left > 0);
  $("#training-another").hidden = !(t.over && t.kind === "puzzle");
}

// A training begun (POST /api/training/start): the game's view shows its setting up. True once begun.
async function start(body) {
  try {
    await post("/api/training/start", body);
  } catch (_) {
    return false;   // (the refusal is shown: no analysis yet, no mistake, no puzzle, a game being played)
  }
  selectTab("game");
  showMessage(w("msg_training"));
  return true;
}

// The library's game: "Learn from my mistakes" once it is finished and analysed; its player of the
// side chosen counts the progress (a side's default name, or both sides: the board's White player).
onReview((id, game) => {
  reviewed = { id, game };
  $("#viewer-train").hidden = !(game.analysis && !game.in_progress && !game.abandoned);
});

function playerOf(game, side) {
  const english = ui.words && ui.words.messages && ui.words.messages.en.sides;
  const name = side === "white" ? game.white : side === "black" ? game.black : "";
  return name && !(english && english.includes(name)) && name !== "?" ? name : "";
}

$("#train-mistakes").addEventListener("click", () => {
  if (!reviewed) return;
  const side = $("#train-side").value;
  const body = { game: reviewed.id, side };
  const player = playerOf(reviewed.game, side);
  if (player) body.player = player;
  start(body);
});

const puzzleForm = $("#puzzle-form");
puzzleForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const player = puzzleForm.elements.player.value.trim();
  start(player ? { kind: "puzzle", player } : { kind: "puzzle" });
});

$("#training-next").addEventListener("click", () => act("/api/training/next"));
$("#training-another").addEventListener("click", () => {
  const t = ui.state && ui.state.training;
  if (t) start({ kind: "puzzle", player: t.player });
});
$("#training-stop").addEventListener("click", () => act("/api/training/stop"));
onRender(renderTraining);
