// Who plays off the board (the engine, Lichess) and its link; an online game's notices, chat, the
// other side leaving (and the claims it allows), the countdown before Lichess aborts a game nobody
// starts, the board seen from the board's side; the Lichess account in the settings.
import { $, ui, onRender } from "./ui.js";
import { w, wf } from "./words.js";
import { act, post, showMessage } from "./requests.js";
import { seeFromBlack } from "./board.js";

function linkWord(state) { return w(`link_${state}`, state); }

function renderOpponent(s, opp) {
  const line = $("#opponent");
  line.hidden = opp.kind === "none";
  if (line.hidden) return;
  // the server's words (firmware.words.opponent_line), in the page's language
  $("#opponent-text").textContent = (ui.lang === "fr" && opp.text_fr) || opp.text || "";
  const link = $("#opponent-link");
  const state = opp.link ? opp.link.state : "";
  link.dataset.state = state;
  link.textContent = state ? linkWord(state) + (opp.link.detail && state !== "connected" ? ` (${opp.link.detail})` : "") : "";
  link.title = opp.link && opp.link.detail ? opp.link.detail : "";
}

function renderOnline(s, opp, over) {
  const online = s.online || {};
  seeFromBlack(online.orientation === "black");
  const notice = $("#online-notice");
  notice.hidden = !online.notice;
  const said = (ui.lang === "fr" && online.notice_fr) || online.notice || "";
  notice.textContent = said && !/[.!?]$/.test(said) ? said + "." : said;
  const first = $("#first-move");
  first.hidden = online.first_move_ms === null || online.first_move_ms === undefined || over;
  if (!first.hidden) first.textContent = wf(`first_move_${s.turn}`, { s: Math.ceil(online.first_move_ms / 1000) });
  const away = $("#away");
  const gone = opp.away;
  away.hidden = !gone || over;
  if (gone) {
    const name = opp.name || w("other_player");
    const wait = gone.claim_win_in_seconds;
    $("#away-text").textContent = wait ? wf("away_wait", { name, s: wait }) : wf("away_claim", { name });
    $("#claim-victory").disabled = $("#claim-gone-draw").disabled = !!wait;
  }
  const chat = $("#chat");
  const lines = online.chat || [];
  chat.hidden = !lines.length;
  const list = $("#chat-lines");
  list.textContent = "";
  for (const line of lines) {
    const li = document.createElement("li");
    const who = document.createElement("b");
    who.textContent = line.user + ": ";
    li.append(who, line.text);
    list.appendChild(li);
  }
}

function renderLichess(l) {
  let text;
  if (l.logged_in) {
    const state = l.link ? l.link.state : "";
    text = l.account ? wf("lichess_signed_in", { account: l.account }) : w("lichess_token_kept");
    text += state ? `: ${linkWord(state)}` : "";
    if (l.link && l.link.detail && state !== "connected") text += ` (${l.link.detail})`;
    text += ".";
    if (l.game) text += ` ${wf("lichess_playing", { game: l.game })}`;
  } else {
    text = w("lichess_none");
  }
  const failed = !!(l.logged_in && l.link && l.link.state === "failed");
  if (failed) {
    // A refused token (401) or another failure: said plainly, and a new token may be entered.
    text = wf("lichess_failed", { detail: l.link.detail || w("link_failed_detail") });
  }
  const el = $("#lichess-state");
  el.textContent = text;
  el.dataset.state = l.logged_in ? (l.link ? l.link.state : "connecting") : "";
  $("#lichess-form").hidden = !!l.logged_in && !failed;
  $("#lichess-logout").hidden = !l.logged_in;
}

onRender((s) => {
  const opp = s.opponent || { kind: "none", sides: [] };
  renderOpponent(s, opp);
  renderOnline(s, opp, s.result && s.result !== "*");
  renderLichess(s.lichess || {});
});

// The token goes to the board once and is wiped from the page at once, whatever the answer.
$("#lichess-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("#lichess-token");
  const token = input.value;
  input.value = "";
  if (!token.trim()) return;
  try {
    await post("/api/lichess/login", { token });
    showMessage(w("msg_token_kept"));
  } catch (_) { /* the message says why */ }
});
$("#lichess-logout").addEventListener("click", () => act("/api/lichess/logout", {}));
$("#claim-victory").addEventListener("click", () => act("/api/lichess/claim", { what: "victory" }));
$("#claim-gone-draw").addEventListener("click", () => act("/api/lichess/claim", { what: "draw" }));
