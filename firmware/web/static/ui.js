// The page's shared state: the latest state the board pushed, the page's language and words, and
// the drawing of a state, which each module joins with its own part (onRender). Imports nothing.

export const $ = (sel) => document.querySelector(sel);
export const $$ = (sel) => Array.from(document.querySelectorAll(sel));

export const ui = {
  state: null,       // the latest page state (docs/state.schema.json), pushed over the websocket
  receivedAt: 0,     // when it came (performance.now()): the clocks run on from there
  hello: { pairing_required: false, paired: true, sim: false },   // the websocket's first message
  lang: localStorage.getItem("echiquier.lang") === "fr" ? "fr" : "en",
  words: null,       // GET /api/words: the page's words in every language (firmware/words/)
};

// The parts of the page drawn from a state, in the order their modules were loaded (app.js's imports).
const drawers = [];
export function onRender(draw) { drawers.push(draw); }

// Draw the latest state again (a new state, the words, the language, the board turned round).
export function render() {
  const s = ui.state;
  if (!s) return;
  for (const draw of drawers) draw(s);
}

export function receive(state) {
  ui.state = state;
  ui.receivedAt = performance.now();
  render();
}
