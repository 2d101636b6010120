// Pairing: a board on the LAN is read-only to a device until it is given the board's pairing code
// (shown on the LEDs); the form for it, opened by its button or by a refusal that asks for it.
import { $, ui } from "./ui.js";
import { w } from "./words.js";
import { onPairingAsked, post, showMessage } from "./requests.js";
import { onHello } from "./feed.js";

function applyPairing() {
  const need = ui.hello.pairing_required && !ui.hello.paired;
  $("#pair-open").hidden = !need;
  document.body.classList.toggle("read-only", need);
  if (!need) $("#pairing").hidden = true;
}

function showPairing(show) {
  $("#pairing").hidden = !show;
  if (show) $("#pair-code").focus();
}

onHello(applyPairing);
onPairingAsked(() => showPairing(true));
$("#pair-open").addEventListener("click", () => showPairing(true));
$("#pair-close").addEventListener("click", () => showPairing(false));
$("#pair-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    await post("/api/pair", { code: $("#pair-code").value });
    ui.hello.paired = true;
    $("#pair-code").value = "";
    applyPairing();
    showMessage(w("msg_paired"));
  } catch (_) { /* the message says why */ }
});
