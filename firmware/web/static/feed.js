// The page's link to the board: the websocket that pushes every state (nothing polls), its hello
// (the pairing, the sim), its state shown in the header, and reconnecting with a growing wait.
import { $, ui, receive } from "./ui.js";
import { onWords, w } from "./words.js";

// The link's states and their words (said again when the language changes).
const LINK_WORDS = { up: "link_live", connecting: "link_connecting", down: "link_reconnecting" };
const greeted = [];   // what hears the hello of each connection (the pairing, the board's voice)
export function onHello(fn) { greeted.push(fn); }

let retry = 0;

function setLink(state) {
  const el = $("#link");
  el.dataset.state = state;
  el.textContent = w(LINK_WORDS[state]);
}

export function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws`);
  setLink("connecting");
  ws.addEventListener("open", () => { retry = 0; setLink("up"); });
  ws.addEventListener("message", (event) => {
    let msg;
    try { msg = JSON.parse(event.data); } catch (_) { return; }
    if (msg.type === "hello") {
      ui.hello = msg;
      for (const fn of greeted) fn();
    } else if (msg.type === "state") {
      receive(msg.state);
    }
  });
  ws.addEventListener("close", () => {
    setLink("down");
    const wait = Math.min(10000, 500 * 2 ** retry++);
    setTimeout(connect, wait);
  });
}

onWords(() => { if ($("#link").dataset.state in LINK_WORDS) setLink($("#link").dataset.state); });
