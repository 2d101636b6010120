// Échiquier web companion: draws the page state pushed by the board over a websocket, and sends
// the player's commands. Plain JavaScript modules, no build step, nothing fetched from elsewhere.
//
// The page's entry: each module imported here is one job of the page, which wires its own controls
// and draws its part of each state (ui.js's onRender) in the order imported here. Then the page
// takes its words and its language (GET /api/words, words.js), and connects to the board.
import { onRender } from "./ui.js";
import { loadWords } from "./words.js";
import "./board.js";
import "./game.js";
import "./setup.js";
import "./online.js";
import "./corrections.js";
import "./settings.js";
import "./simhand.js";
import "./voice.js";
import "./clocks.js";
import "./library.js";
import "./newgame.js";
import "./pairing.js";
import "./keyboard.js";
import "./analysis.js";
import "./training.js";
import { connect } from "./feed.js";

// Drawn last: the state the page shows (its number), and that the page has shown one (the tests wait for it).
onRender((s) => {
  document.body.dataset.seq = s.seq;
  document.body.dataset.ready = "1";
});

loadWords().then(connect);   // the words and the language first: a state is never drawn without them
