// What the board announces (moves, prompts, results): the live region that screen readers read
// out, the phone's own voice (the Web Speech API), the board's voice in the page's language, the
// buttons that ask the board for words; and a helper that failed, said once a visit.
import { $, ui, onRender } from "./ui.js";
import { onLanguage } from "./words.js";
import { post, showMessage } from "./requests.js";
import { onHello } from "./feed.js";

const PROMPT_HOLD_MS = 500;   // a prompt is said once it has stood this long (a hand on its way shows passing ones)
const heard = { said: null, timer: null, failed: new Set() };   // the latest announcement's n; the helpers said
let speakHere = localStorage.getItem("echiquier.speak") === "1";   // the phone's own voice

// A new announcement (the state's "said") goes to the aria-live region; a prompt only once it
// has stood PROMPT_HOLD_MS. The first state of a visit is old news.
function renderSaid(s) {
  const said = s.said;
  if (!said || said.n === heard.said) return;
  const first = heard.said === null;
  heard.said = said.n;
  if (first) return;
  const text = ui.lang === "fr" ? said.text_fr : said.text;
  clearTimeout(heard.timer);
  const prompt = said.kinds.every((k) => k === "prompt" || k === "setup");
  if (prompt) heard.timer = setTimeout(() => say(text), PROMPT_HOLD_MS);
  else say(text);
}

// A helper that failed (the board's voice, the coach's engine): the message says it once a visit,
// not at every state.
function renderFailedHelpers(s) {
  for (const failed of s.failed_helpers || []) {
    if (heard.failed.has(failed.helper)) continue;
    heard.failed.add(failed.helper);
    showMessage((ui.lang === "fr" && failed.text_fr) || failed.text, "error");
  }
}

function say(text) {
  if (!text) return;
  const region = $("#said");
  region.textContent = "";   // (the same words again are news again)
  region.textContent = text;
  if (speakHere && "speechSynthesis" in window) {
    window.speechSynthesis.cancel();   // a newer announcement cuts a stale one
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = ui.lang === "fr" ? "fr-FR" : "en-GB";
    window.speechSynthesis.speak(utterance);
  }
}

// The page asks the board for words: the last move and the clocks, or the position described.
async function askVoice(what) {
  try {
    const answer = await post("/api/voice", { say: what, lang: ui.lang });
    say(answer.text);
  } catch (_) { /* the message says why */ }
}

// The board's voice speaks the page's language when set to ("[voice] language = page"); the
// answer says whether the board has a voice (the switch in the settings) and whether it is off.
async function tellLanguage(mute) {
  if (!ui.hello.paired) return;
  const body = { lang: ui.lang };
  if (mute !== undefined) body.mute = mute;
  try {
    const r = await fetch("/api/voice", { method: "POST", headers: { "Content-Type": "application/json" },
                                          credentials: "same-origin", body: JSON.stringify(body) });
    if (!r.ok) return;
    const answer = await r.json();
    $("#board-voice-label").hidden = !answer.board;
    $("#board-voice").checked = !answer.muted;
  } catch (_) { /* the board hears it next time */ }
}

onRender(renderSaid);
onRender(renderFailedHelpers);
onHello(() => tellLanguage());
onLanguage(() => tellLanguage());
$("#voice-repeat").addEventListener("click", () => askVoice("repeat"));
$("#voice-describe").addEventListener("click", () => askVoice("describe"));
$("#board-voice").addEventListener("change", () => tellLanguage(!$("#board-voice").checked));
const speakBox = $("#speak-here");
$("#speak-here-label").hidden = !("speechSynthesis" in window);
speakBox.checked = speakHere;
speakBox.addEventListener("change", () => {
  speakHere = speakBox.checked;
  localStorage.setItem("echiquier.speak", speakHere ? "1" : "0");
  if (!speakHere && "speechSynthesis" in window) window.speechSynthesis.cancel();
});
