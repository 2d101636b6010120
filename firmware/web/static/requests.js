// The page's requests to the board (JSON both ways, the refusals in the page's language) and the
// message box that says how they went.
import { $, ui } from "./ui.js";
import { w, wf } from "./words.js";

let messageTimer = null;
export function showMessage(text, kind = "info") {
  const box = $("#message");
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => { box.hidden = true; }, kind === "error" ? 8000 : 4000);
}

// A refusal that asks for the pairing code opens the pairing's form (pairing.js says how).
let askPairing = () => {};
export function onPairingAsked(fn) { askPairing = fn; }

export async function post(path, body) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
      credentials: "same-origin",
    });
  } catch (err) {
    showMessage(w("msg_unreachable"), "error");
    throw err;
  }
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) {
    const said = data && ((ui.lang === "fr" && data.error_fr) || data.error);   // a refusal comes in both languages
    const text = said || wf("msg_refused", { status: response.status });
    showMessage(text, "error");
    if (data && data.pairing) askPairing();
    const err = new Error(text);
    err.status = response.status;
    throw err;
  }
  return data;
}

// A command whose refusal the message box says, and nothing more.
export function act(path, body) { return post(path, body).catch(() => {}); }
