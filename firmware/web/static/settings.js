// The settings: the board's (legal squares, touch-move, colours, takebacks, brightness) and the
// engine's, each sent as it changes; online, the assistance the session switches off.
import { $, onRender } from "./ui.js";
import { w } from "./words.js";
import { act, showMessage } from "./requests.js";

const form = $("#settings");

function renderSettings(s) {
  // (not while a field is being written in: the state would overwrite it)
  if (form.contains(document.activeElement) && document.activeElement.type !== "checkbox") return;
  const st = s.settings;
  for (const name of ["show_legal", "touch_move", "alternate_colours", "takebacks"]) {
    form.elements[name].checked = !!st[name];
  }
  form.elements.brightness.value = st.brightness;
  $("#brightness-out").textContent = Math.round(st.brightness * 100) + " %";
  form.elements.engine_level.value = st.engine_level;
  form.elements.engine_elo.value = st.engine_elo || 0;
  form.elements.engine_move_time.value = st.engine_move_time;
  // Online, legal-square hints are assistance: the session switches them off.
  const assisted = !s.opponent || s.opponent.assistance_allowed !== false;
  form.elements.show_legal.disabled = !assisted;
  form.elements.takebacks.disabled = !assisted;
  $("#assist-note").hidden = assisted;
}

onRender(renderSettings);
form.addEventListener("change", (event) => {
  const input = event.target;
  if (!input.name) return;
  let value;
  if (input.type === "checkbox") value = input.checked;
  else {
    if (input.value === "" || !input.checkValidity()) {
      showMessage(`${input.name.replace(/_/g, " ")}: ${input.validationMessage || w("not_valid")}`, "error");
      return;
    }
    value = Number(input.value);
  }
  act("/api/settings", { [input.name]: value });
});
form.elements.brightness.addEventListener("input", () => {
  $("#brightness-out").textContent = Math.round(Number(form.elements.brightness.value) * 100) + " %";
});
