// The clocks: each side's time run on from the latest state between the board's pushes, the delay
// of a delay time control, the clock boxes (none in a game without a clock), the Pause button.
import { $, ui, onRender } from "./ui.js";
import { w } from "./words.js";
import { act } from "./requests.js";

function pad(n) { return String(n).padStart(2, "0"); }

// The clock face of chess_core.format_clock: H:MM:SS from 20 s, tenths below, digits cut.
function formatClock(ms) {
  if (ms === null || ms === undefined) return "-:--:--";
  ms = Math.max(0, Math.floor(ms));
  if (ms >= 20000) {
    const s = Math.floor(ms / 1000), m = Math.floor(s / 60), h = Math.floor(m / 60);
    return `${h}:${pad(m % 60)}:${pad(s % 60)}`;
  }
  const tenths = Math.floor(ms / 100);
  return `0:${pad(Math.floor(tenths / 10))}.${tenths % 10}`;
}

function clockValue(side, now) {
  const c = ui.state && ui.state.clocks;
  if (!c) return null;
  let ms = c[side];
  if (ms === null || ms === undefined) return null;
  const elapsed = now - ui.receivedAt;
  if (c.running === side) ms -= Math.max(0, elapsed - (c.delay_left || 0));
  else if (c.running && c.sandclock) ms += elapsed;
  return ms;
}

// The delay of the side to move (a "simple delay" time control): the main time waits for it.
function delayValue(side, now) {
  const c = ui.state && ui.state.clocks;
  if (!c || c.running !== side || c.paused || !c.delay_left) return 0;
  return Math.max(0, c.delay_left - (now - ui.receivedAt));
}

function tickClocks() {
  if (!ui.state) return;
  const now = performance.now();
  for (const side of ["white", "black"]) {
    const el = $("#clock-" + side);
    const text = formatClock(clockValue(side, now));
    if (el.textContent !== text) el.textContent = text;
    const running = ui.state.clocks.running === side ? "1" : "0";
    if (el.dataset.running !== running) el.dataset.running = running;
    const delay = $("#delay-" + side);
    const left = delayValue(side, now);
    const delayText = left > 0 ? `+${(Math.ceil(left / 100) / 10).toFixed(1)}` : "";
    if (delay.textContent !== delayText) delay.textContent = delayText;
    delay.hidden = !delayText;
  }
}

function renderClocks(s) {
  const c = s.clocks;
  const over = s.result && s.result !== "*";
  const timed = c.white !== null || c.black !== null;
  // A game without a clock shows no clock boxes (no "-:--:--" to wonder about).
  for (const side of ["white", "black"]) $("#clock-" + side).hidden = !timed;
  const pause = $("#pause");
  pause.textContent = c.paused ? w("resume") : w("pause");
  pause.disabled = over || !timed || (!c.paused && !c.running);
  // Online the clock is the server's: no pausing it here.
  pause.hidden = !timed || (s.opponent && s.opponent.kind) === "lichess";
  tickClocks();
}

onRender(renderClocks);
$("#pause").addEventListener("click", () => act("/api/game/clock", { action: ui.state.clocks.paused ? "resume" : "pause" }));
setInterval(tickClocks, 100);
