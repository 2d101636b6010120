// The game panel: the status, the result, the players, the problems, the moves, the promotion's
// choice, the offers (a draw, a takeback) and their answers, the claims, resigning, the coach's
// hint, the computer taking over a side and giving it back.
import { $, ui, onRender } from "./ui.js";
import { w } from "./words.js";
import { act } from "./requests.js";
import { pieceSvg } from "./pieces.js";
import { renderMoves, startOf } from "./moves.js";
import { armed, disarm } from "./confirm.js";

const SIDES = ["white", "black"];

function renderGame(s) {
  const fr = ui.lang === "fr";
  $("#status").textContent = fr && s.status_fr ? s.status_fr : s.status;
  const appLink = $("#app-link");   // an app plays on the board through an emulated board's protocol
  appLink.hidden = !s.app;
  appLink.textContent = s.app ? (fr ? s.app.text_fr : s.app.text) : "";
  const over = s.result && s.result !== "*";
  const result = $("#result");
  result.hidden = !over;
  result.textContent = over ? s.result : "";   // (the status says how it ended: said once)
  const players = (fr && s.players_fr) || s.players;   // a side's default name in French
  $("#name-white").textContent = players.white;
  $("#name-black").textContent = players.black;
  $("#player-white").classList.toggle("to-move", !over && s.turn === "white");
  $("#player-black").classList.toggle("to-move", !over && s.turn === "black");

  const problems = $("#problems");
  problems.textContent = "";
  // The server picks what goes under the status (the board's latest problem while it is
  // wrong), no text said twice.
  const current = (fr && s.notes_fr) || s.notes || [];
  for (const p of current) {
    const li = document.createElement("li"); li.textContent = p; problems.appendChild(li);
  }
  problems.hidden = !current.length;
  const ledsProblem = $("#leds-problem");  // the board plays on without LEDs, and says why
  ledsProblem.textContent = s.leds_problem || "";
  ledsProblem.hidden = !s.leds_problem;
  const saveProblem = $("#save-problem");  // the game is not on disk: the players must know
  saveProblem.textContent = s.save_problem || "";
  saveProblem.hidden = !s.save_problem;

  const opening = $("#opening");   // the latest named position's ECO code and name (the data set's English)
  opening.hidden = !s.opening;
  opening.textContent = s.opening ? `${s.opening.eco} ${s.opening.name}` : "";
  renderMoves($("#moves"), (fr && s.moves.san_fr) || s.moves.san, startOf(s.start_fen), null, null);
  renderPromotion(s);
  renderOffers(s, over);
  renderActions(s, over);
}

function renderPromotion(s) {
  const promo = $("#promotion");
  promo.hidden = !s.promotion;
  for (const b of promo.querySelectorAll("button")) {
    const p = b.dataset.piece;
    const white = !s.promotion || s.promotion.color !== "black";
    const g = document.createElement("span");
    g.className = "glyph " + (white ? "w" : "b");
    g.innerHTML = pieceSvg(white ? p.toUpperCase() : p);
    b.replaceChildren(g, ` ${w("letter_" + p)}`);
    b.title = w("piece_" + p);
    b.setAttribute("aria-pressed", s.promotion && s.promotion.piece === p ? "true" : "false");
  }
}

// An offer of the board's side to the other end waits for its answer; one from the other end (or
// across the board) is answered here.
function renderOffers(s, over) {
  const opp = s.opponent || { kind: "none", sides: [] };
  const theirs = new Set(opp.sides || []);   // the sides played off the board (engine, online)
  const offer = $("#draw-offer");
  offer.hidden = !s.draw_offer || over;
  if (s.draw_offer) {
    const waiting = opp.kind !== "none" && !theirs.has(s.draw_offer) && theirs.size > 0;
    $("#draw-offer-text").textContent = waiting ? w(`draw_offered_waiting_${s.draw_offer}`) : w(`draw_offered_${s.draw_offer}`);
    $("#draw-accept").hidden = $("#draw-decline").hidden = waiting;
  }
  const tbOffer = $("#takeback-offer");
  tbOffer.hidden = !s.takeback_offer || over;
  if (s.takeback_offer) $("#takeback-offer-text").textContent = w(`takeback_asked_${s.takeback_offer}`);
  const claim = $("#claim-draw");
  claim.hidden = !(s.claimable_draws && s.claimable_draws.length) || over;
  if (!claim.hidden) claim.textContent = `${w("claim_draw")} (${s.claimable_draws.map((c) => w("claim_" + c.replace(/[^a-z]+/g, "_"), c)).join(", ")})`;
}

function renderActions(s, over) {
  const opp = s.opponent || { kind: "none", sides: [], assistance_allowed: true };
  const theirs = new Set(opp.sides || []);
  for (const side of SIDES) {
    $("#offer-" + side).disabled = over || s.draw_offer === side;
    $("#resign-" + side).disabled = over;
    // The computer or the other end decides for its own side.
    $("#offer-" + side).hidden = $("#resign-" + side).hidden = theirs.has(side);
  }
  // Online (no assistance allowed) a takeback is the other end's to grant: no button here.
  const takeback = $("#takeback");
  takeback.disabled = !s.can_takeback;
  takeback.hidden = !opp.assistance_allowed || (!s.settings.takebacks && !s.can_takeback);
  // The coach ([coach]) helps the side to move: a hint may be asked (never online, never the engine's side).
  $("#hint").hidden = !s.hint_available;

  const takeOver = s.take_over || [];
  $("#takeover").hidden = !takeOver.length;
  for (const side of SIDES) {
    const b = $("#takeover-" + side);
    b.hidden = !takeOver.includes(side);
    if (b.hidden) disarm(b);
  }
  const takenOver = (!over && opp.takeover) || {};
  $("#giveback").hidden = !Object.keys(takenOver).length;
  for (const side of SIDES) $("#giveback-" + side).hidden = !takenOver[side];
}

onRender(renderGame);
for (const side of SIDES) {
  armed($("#resign-" + side), () => w("confirm_resign_" + side), () => act("/api/game/resign", { color: side }));
  armed($("#takeover-" + side), () => w("confirm_takeover_" + side), () => act("/api/game/takeover", { color: side }));
  $("#giveback-" + side).addEventListener("click", () => act("/api/game/giveback", { color: side }));
  $("#offer-" + side).addEventListener("click", () => act("/api/game/draw", { action: "offer", color: side }));
}
$("#takeback-accept").addEventListener("click", () => act("/api/game/takeback-offer", { action: "accept" }));
$("#takeback-decline").addEventListener("click", () => act("/api/game/takeback-offer", { action: "decline" }));
const other = () => (ui.state && ui.state.draw_offer === "white" ? "black" : "white");
$("#draw-accept").addEventListener("click", () => act("/api/game/draw", { action: "accept", color: other() }));
$("#draw-decline").addEventListener("click", () => act("/api/game/draw", { action: "decline", color: other() }));
$("#claim-draw").addEventListener("click", () => act("/api/game/draw", { action: "claim", color: ui.state.turn }));
$("#takeback").addEventListener("click", () => act("/api/game/takeback", {}));
$("#hint").addEventListener("click", () => act("/api/coach/hint", {}));
for (const b of $("#promotion").querySelectorAll("button")) {
  b.addEventListener("click", () => act("/api/game/promotion", { piece: b.dataset.piece }));
}
