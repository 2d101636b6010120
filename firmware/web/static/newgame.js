// The new game's form: two players over the board, Stockfish or Lichess; the names (a side's
// default name in the page's language on the page, the record's in the PGN), the colours, the
// time control, the variant and the rules; a game in progress is abandoned only once confirmed.
import { $, ui } from "./ui.js";
import { onWords, w } from "./words.js";
import { post, showMessage } from "./requests.js";
import { arm, disarm } from "./confirm.js";
import { onSelect, selectTab } from "./tabs.js";

const form = $("#new-game");

// The sides' default names: "White" and "Black" in the record (the PGN's), the sides' words of the
// page's language on the page ("Blancs", "Noirs"). ``sideOf(name)``: 0, 1, or -1 for a name given.
function sideNames(lang) {
  const page = ui.words && ui.words.page[lang];
  return page ? [page.white_label, page.black_label] : [];
}
function sideOf(name) {
  for (const lang of ui.words ? Object.keys(ui.words.page) : []) {
    const i = sideNames(lang).indexOf(name.trim());
    if (i >= 0) return i;
  }
  return -1;
}
const recordName = (name) => (sideOf(name) >= 0 ? sideNames("en")[sideOf(name)] : name);

// The name fields: a side's default name in the page's language.
function translateNameFields() {
  for (const field of [form.elements.white, form.elements.black]) {
    const i = sideOf(field.value);
    if (i >= 0) field.value = sideNames(ui.lang)[i];
  }
}

function showOpponent() {
  const kind = form.elements.opponent.value;
  $("#ng-local").hidden = kind !== "none";
  $("#ng-engine").hidden = kind !== "engine";
  $("#ng-lichess").hidden = kind !== "lichess";
  $("#ng-clock").hidden = kind === "lichess";
}

// The form opens on the opponent of the game in progress (the next game likely has the same).
function prefill() {
  const s = ui.state;
  if (!s) return;
  const opp = s.opponent || { kind: "none", sides: [] };
  form.elements.opponent.value = ["none", "engine", "lichess"].includes(opp.kind) ? opp.kind : "none";
  if (opp.kind === "engine" && opp.sides && opp.sides.length === 1) form.elements.engine_side.value = opp.sides[0];
  form.elements.engine_level.value = s.settings.engine_level;
  $("#ng-level-out").textContent = form.elements.engine_level.value;
  showOpponent();
}

// What POST /api/game/new is given: the form's choices for its opponent.
function request() {
  const opponent = form.elements.opponent.value;
  if (opponent === "lichess") return { opponent };
  const preset = form.elements["tc-preset"].value;
  const body = {
    opponent,
    time_control: preset === "custom" ? form.elements["tc-custom"].value : preset,
    rules: form.elements.rules.value,
  };
  const variant = form.elements.variant.value;
  body.variant = variant === "standard" ? "standard" : "chess960";
  if (variant === "chess960-random") body.start_position = -1;
  if (variant === "chess960-number") body.start_position = Number(form.elements.start_position.value);
  if (opponent === "engine") {
    body.engine_side = form.elements.engine_side.value;
    body.engine_level = Number(form.elements.engine_level.value);
    if (form.elements.player.value.trim()) body.player = form.elements.player.value;
  } else {
    Object.assign(body, { white: recordName(form.elements.white.value), black: recordName(form.elements.black.value),
                          colours: form.elements.colours.value });
  }
  return body;
}

async function submit(event) {
  event.preventDefault();
  // A game in progress is abandoned by a new one: the first press asks, the second confirms.
  const button = form.querySelector("[type=submit]");
  const s = ui.state;
  const inProgress = s && s.started && s.result === "*" && (s.moves.san || []).length > 0;
  if (inProgress && button.dataset.armed !== "1") {
    arm(button, w("abandon_confirm"), 6000);
    return;
  }
  disarm(button);
  try {
    await post("/api/game/new", request());
    selectTab("game");
    showMessage(w("msg_new_game"));
  } catch (_) { /* shown */ }
}

onWords(translateNameFields);
onSelect("new", (wasHidden) => { if (wasHidden) prefill(); });
form.elements["tc-preset"].addEventListener("change", () => {
  $("#tc-custom-label").hidden = form.elements["tc-preset"].value !== "custom";
});
for (const radio of form.querySelectorAll("[name=opponent]")) radio.addEventListener("change", showOpponent);
form.elements.variant.addEventListener("change", () => {
  $("#ng-number-label").hidden = form.elements.variant.value !== "chess960-number";
});
showOpponent();
form.elements.engine_level.addEventListener("input", () => {
  $("#ng-level-out").textContent = form.elements.engine_level.value;
});
$("#swap-names").addEventListener("click", () => {
  const white = form.elements.white.value;
  form.elements.white.value = form.elements.black.value;
  form.elements.black.value = white;
});
form.addEventListener("submit", submit);
