// Échiquier web companion: draws the page state pushed by the board over a websocket, and sends
// the player's commands. Plain JavaScript, no build step, nothing fetched from elsewhere.
"use strict";

(() => {
  const FILES = "abcdefgh";
  const NAMES = [];
  for (let r = 0; r < 8; r++) for (let f = 0; f < 8; f++) NAMES.push(FILES[f] + (r + 1));
  const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
  const TEXT_STYLE = "\uFE0E"; // ask for the text glyph, not an emoji
  const LETTERS = {
    en: { q: "Q", r: "R", b: "B", n: "N" },
    fr: { q: "D", r: "T", b: "F", n: "C" },
  };
  const PIECE_NAMES = {
    en: { q: "queen", r: "rook", b: "bishop", n: "knight" },
    fr: { q: "dame", r: "tour", b: "fou", n: "cavalier" },
  };

  // The squares' names until GET /api/words gives the page's language's (firmware/words/spoken_*.py).
  const SQUARE_WORDS = {
    piece: "{square}, {piece}", empty: "{square}, empty", expected: "{square}, empty, expected: {piece}",
    unknown: "{square}, a piece",
    pieces: { K: "white king", Q: "white queen", R: "white rook", B: "white bishop", N: "white knight", P: "white pawn",
              k: "black king", q: "black queen", r: "black rook", b: "black bishop", n: "black knight", p: "black pawn" },
  };
  const PROMPT_HOLD_MS = 500;   // a prompt is said once it has stood this long (a hand on its way shows passing ones)

  const $ = (sel) => document.querySelector(sel);
  const $$ = (sel) => Array.from(document.querySelectorAll(sel));

  const ui = {
    state: null,
    receivedAt: 0,
    hello: { pairing_required: false, paired: true, sim: false },
    lang: localStorage.getItem("echiquier.lang") === "fr" ? "fr" : "en",
    flipped: localStorage.getItem("echiquier.flipped") === "1",
    autoFlip: false,   // the board plays Black online: seen from Black's side
    handIndex: null,
    squares: {},
    ws: null,
    retry: 0,
    simQueue: Promise.resolve(),
    pointer: null,
    libraryDirty: true,
    viewer: null,
    words: null,   // GET /api/words: the page's words in both languages (firmware/words/)
    focus: "e2",   // the square that has the keyboard's focus on the board
    said: null,    // the latest announcement put in the live region (its n)
    saidTimer: null,
    failedShown: new Set(),   // the helpers whose failure the message said (the state's failed_helpers)
    speakHere: localStorage.getItem("echiquier.speak") === "1",   // the phone's own voice (Web Speech API)
  };

  // A word of the page in the chosen language (the English in the HTML until the words arrive).
  function w(key, fallback) {
    const words = ui.words && ui.words.page[ui.lang];
    return (words && words[key]) || fallback || key;
  }

  // The page's words with their {placeholders} filled: wf("away_wait", "...", { name, s }).
  function wf(key, fallback, values) {
    return w(key, fallback).replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
  }

  // The sides' default names: "White" and "Black" in the record (the PGN's), the sides' words of the
  // page's language on the page ("Blancs", "Noirs"). ``sideOf(name)``: 0, 1, or -1 for a name given.
  function sideNames(lang) {
    const page = ui.words && ui.words.page[lang];
    return page ? [page.white_label, page.black_label] : ["White", "Black"];
  }
  function sideOf(name) {
    const langs = ui.words ? Object.keys(ui.words.page) : ["en"];
    for (const lang of langs) {
      const i = sideNames(lang).indexOf(name.trim());
      if (i >= 0) return i;
    }
    return -1;
  }
  // The new game's name fields: a side's default name in the page's language; sent as the record's.
  function translateNameFields() {
    const form = $("#new-game");
    for (const field of [form.elements.white, form.elements.black]) {
      const i = sideOf(field.value);
      if (i >= 0) field.value = sideNames(ui.lang)[i];
    }
  }
  const recordName = (name) => (sideOf(name) >= 0 ? sideNames("en")[sideOf(name)] : name);

  function applyWords() {
    if (!ui.words) return;
    translateNameFields();
    for (const el of $$("[data-words]")) {
      if (el.dataset.armed === "1") continue;   // asking to confirm: its label comes back when disarmed
      // the words in the element, its leading and trailing spaces kept (beside an input)
      const [, lead, , trail] = el.textContent.match(/^(\s*)([\s\S]*?)(\s*)$/);
      const text = lead + w(el.dataset.words, el.textContent.trim()) + trail;
      if (el.textContent !== text) el.textContent = text;
      if (el.dataset.label !== undefined) el.dataset.label = text;
    }
    document.documentElement.lang = ui.lang;
    $("#board").setAttribute("aria-label", w("board_label", "Board"));
    if ($("#link").dataset.state in PAGE_LINK_WORDS) setLink($("#link").dataset.state);
    renderLegend();
  }

  // The LED legend: the roles lit now (state.lit_roles), each in its colour, in the chosen language.
  function renderLegend() {
    const list = $("#led-legend-list");
    if (!ui.words || !list) return;
    const roles = ui.words.leds[ui.lang];
    list.textContent = "";
    for (const { role, colour } of (ui.state && ui.state.lit_roles) || []) {
      const li = document.createElement("li");
      li.dataset.role = role;
      const dot = document.createElement("span");
      dot.className = "led-dot";
      dot.style.background = colour;
      li.append(dot, " " + (roles[role] || role));
      list.appendChild(li);
    }
  }

  async function loadWords() {
    try {
      const r = await fetch("/api/words", { cache: "no-store" });
      if (r.ok) { ui.words = await r.json(); applyWords(); render(); }
    } catch (_) { /* the English of the HTML stays */ }
  }

  // -- helpers ------------------------------------------------------------------------------------
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

  function placement(fen) {
    const out = new Array(64).fill(null);
    if (!fen) return out;
    const rows = fen.split(" ")[0].split("/");
    for (let i = 0; i < 8 && i < rows.length; i++) {
      const rank = 7 - i;
      let file = 0;
      for (const ch of rows[i]) {
        if (ch >= "1" && ch <= "8") file += Number(ch);
        else { if (file < 8) out[rank * 8 + file] = ch; file++; }
      }
    }
    return out;
  }

  // The LEDs are dimmed by the brightness setting; the page draws their hue at full strength.
  function displayColour(led) {
    const v = parseInt(led.slice(1), 16);
    const r = v >> 16, g = (v >> 8) & 255, b = v & 255;
    const top = Math.max(r, g, b);
    if (!top) return led;
    const k = 255 / top;
    const hex = (x) => Math.min(255, Math.round(x * k)).toString(16).padStart(2, "0");
    return `#${hex(r)}${hex(g)}${hex(b)}`;
  }

  function glyph(symbol) { return GLYPH[symbol.toLowerCase()] + TEXT_STYLE; }
  function colourOf(symbol) { return symbol === symbol.toUpperCase() ? "w" : "b"; }

  let messageTimer = null;
  function showMessage(text, kind = "info") {
    const box = $("#message");
    box.textContent = text;
    box.dataset.kind = kind;
    box.hidden = false;
    clearTimeout(messageTimer);
    messageTimer = setTimeout(() => { box.hidden = true; }, kind === "error" ? 8000 : 4000);
  }

  async function post(path, body) {
    let response;
    try {
      response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
    } catch (err) {
      showMessage(w("msg_unreachable", "The board cannot be reached."), "error");
      throw err;
    }
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    if (!response.ok) {
      const said = data && ((ui.lang === "fr" && data.error_fr) || data.error);   // a refusal comes in both languages
      const text = said || wf("msg_refused", "Request refused ({status}).", { status: response.status });
      showMessage(text, "error");
      if (data && data.pairing) showPairing(true);
      const err = new Error(text);
      err.status = response.status;
      throw err;
    }
    return data;
  }
  // What analysis.js (the library's analysis) uses of this page: its words and its requests.
  window.echiquier = { post, w, wf, lang: () => ui.lang };

  function act(path, body) { return post(path, body).catch(() => {}); }

  // -- the board ------------------------------------------------------------------------------------
  // The board is seen from White's side, or Black's when the board plays Black online; the Flip
  // button turns it round from there.
  function flipped() { return ui.flipped !== ui.autoFlip; }

  // A grid of 8 rows (the ranks, as seen) of 8 cells; each square is named for a screen reader
  // ("e4, white pawn") and, on the page's own board, focusable: one at a time (the arrows move it).
  function buildBoard(container, squares, interactive) {
    container.textContent = "";
    container.setAttribute("role", "grid");
    for (let row = 0; row < 8; row++) {
      const line = document.createElement("div");
      line.className = "rank-row";
      line.setAttribute("role", "row");
      container.appendChild(line);
      for (let col = 0; col < 8; col++) {
        const rank = flipped() && interactive ? row : 7 - row;
        const file = flipped() && interactive ? 7 - col : col;
        const sq = rank * 8 + file;
        const el = document.createElement("div");
        el.className = "sq " + ((file + rank) % 2 ? "light" : "dark");
        el.dataset.square = NAMES[sq];
        el.dataset.led = "";
        el.setAttribute("role", "gridcell");
        const piece = document.createElement("span");
        piece.className = "piece";
        el.appendChild(piece);
        const bottomRank = flipped() && interactive ? 7 : 0;
        const leftFile = flipped() && interactive ? 7 : 0;
        if (rank === bottomRank) {
          const c = document.createElement("span"); c.className = "coord file"; c.textContent = FILES[file];
          c.setAttribute("aria-hidden", "true"); el.appendChild(c);
        }
        if (file === leftFile) {
          const c = document.createElement("span"); c.className = "coord rank"; c.textContent = rank + 1;
          c.setAttribute("aria-hidden", "true"); el.appendChild(c);
        }
        if (interactive) el.tabIndex = NAMES[sq] === ui.focus ? 0 : -1;
        el.setAttribute("aria-label", squareLabel(NAMES[sq], null, ""));
        line.appendChild(el);
        squares[NAMES[sq]] = el;
      }
    }
  }

  // A square as a screen reader says it, in the page's language: "e4, white pawn", "e4, empty",
  // "e4, empty, expected: white pawn" (the game has a piece there that the board lacks).
  function squareLabel(name, symbol, kind) {
    const words = (ui.words && ui.words.squares && ui.words.squares[ui.lang]) || SQUARE_WORDS;
    const fill = (key, piece) => words[key].replace("{square}", name).replace("{piece}", piece || "");
    if (!symbol) return fill("empty");
    if (symbol === "?") return fill("unknown");
    return fill(kind === "ghost" ? "expected" : "piece", words.pieces[symbol]);
  }

  // The pieces are SVG drawn for the project (pieces.js): the same on every device.
  function pieceHtml(symbol) { return window.EchiquierPieces.pieceSvg(symbol); }

  function setPiece(el, symbol, kind) {
    const span = el.firstChild;
    const shown = symbol || "";
    if (span.dataset.shown !== shown) {
      span.dataset.shown = shown;
      if (!symbol) span.textContent = "";
      else if (symbol === "?") span.textContent = "\u25CF";
      else span.innerHTML = pieceHtml(symbol);
    }
    const cls = "piece" + (symbol ? " " + (symbol === "?" ? "unknown" : colourOf(symbol)) : "") + (kind ? " " + kind : "");
    if (span.className !== cls) span.className = cls;
    el.dataset.piece = symbol || "";
    const label = squareLabel(el.dataset.square, symbol, kind);
    if (el.getAttribute("aria-label") !== label) el.setAttribute("aria-label", label);
  }

  function renderBoard(s) {
    $("#board").dataset.expected = s.expected_move || "";
    const expected = placement(s.fen);
    const occupied = new Set(s.occupied);
    const lifted = new Set(s.lifted);
    const wrong = new Set(s.wrong);
    const last = new Set(s.last_move ? [s.last_move.slice(0, 2), s.last_move.slice(2, 4)] : []);
    const physical = s.sim ? s.sim.pieces : null;
    for (let i = 0; i < 64; i++) {
      const name = NAMES[i];
      const el = ui.squares[name];
      const occ = occupied.has(name);
      const exp = expected[i];
      if (physical) {
        if (physical[name]) setPiece(el, physical[name], "");
        else if (exp) setPiece(el, exp, "ghost");
        else setPiece(el, null, "");
      } else if (occ) {
        setPiece(el, exp || "?", "");
      } else if (exp) {
        setPiece(el, exp, "ghost");
      } else {
        setPiece(el, null, "");
      }
      if (occ) el.dataset.occupied = "1"; else delete el.dataset.occupied;
      const led = s.leds[i] || "";
      if (el.dataset.led !== led) {
        el.dataset.led = led;
        if (led) el.style.setProperty("--led", displayColour(led)); else el.style.removeProperty("--led");
      }
      el.classList.toggle("lifted", lifted.has(name));
      el.classList.toggle("wrong", wrong.has(name));
      el.classList.toggle("last", last.has(name));
    }
    renderBlink(s);
  }

  // An app's blinking lights come once, as patterns (state.app.blink), not at every phase: the
  // page plays them, one slot every slot_ms, bit 7 first; s.leds holds every square lit at all.
  const blink = { timer: null, key: "", since: 0 };
  function renderBlink(s) {
    const b = s.app && s.app.blink;
    const key = b ? JSON.stringify(b) : "";
    if (key === blink.key) return;
    blink.key = key;
    if (blink.timer) { clearInterval(blink.timer); blink.timer = null; }
    for (const name of NAMES) ui.squares[name].classList.remove("led-off");
    if (!b) return;
    blink.since = performance.now();
    const step = () => {
      const bit = 0x80 >> (Math.floor((performance.now() - blink.since) / b.slot_ms) % 8);
      for (let i = 0; i < 64; i++) {
        const p = b.patterns[i];
        if (p && p !== 255) ui.squares[NAMES[i]].classList.toggle("led-off", !(p & bit));
      }
    };
    step();
    blink.timer = setInterval(step, Math.max(b.slot_ms, 25));
  }

  // -- clocks -------------------------------------------------------------------------------------------
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

  // -- the game panel -------------------------------------------------------------------------------------
  function startNumbering(s) {
    const fen = s.start_fen;
    if (!fen) return { number: 1, black: false };
    const parts = fen.split(" ");
    return { number: Number(parts[5]) || 1, black: parts[1] === "b" };
  }

  function renderMoves(list, sans, start, current, onPick) {
    list.textContent = "";
    let number = start.number;
    let li = null;
    sans.forEach((text, i) => {
      const ply = i + (start.black ? 1 : 0);
      if (ply % 2 === 0 || li === null) {
        li = document.createElement("li");
        const n = document.createElement("span");
        n.className = "num";
        n.textContent = number + ".";
        li.appendChild(n);
        if (ply % 2 === 1) {
          const gap = document.createElement("span");
          gap.className = "san gap";
          li.appendChild(gap);
        }
        list.appendChild(li);
      }
      const m = document.createElement(onPick ? "button" : "span");
      m.className = "san " + (ply % 2 === 0 ? "w" : "b");
      m.textContent = text;
      if (onPick) {
        m.type = "button";
        m.addEventListener("click", () => onPick(i + 1));
      }
      if (current === i + 1) m.classList.add("current");
      li.appendChild(document.createTextNode(" "));
      li.appendChild(m);
      if (ply % 2 === 1) number++;
    });
    // The list scrolls to its last move by itself; the page never scrolls (on a phone the board,
    // both clocks and the status stay in view after a move).
    if (!onPick) list.scrollTop = list.scrollHeight;
  }

  function renderGame(s) {
    $("#status").textContent = ui.lang === "fr" && s.status_fr ? s.status_fr : s.status;
    const appLink = $("#app-link");   // an app plays on the board through an emulated board's protocol
    appLink.hidden = !s.app;
    appLink.textContent = s.app ? (ui.lang === "fr" ? s.app.text_fr : s.app.text) : "";
    const over = s.result && s.result !== "*";
    const result = $("#result");
    result.hidden = !over;
    result.textContent = over ? s.result : "";   // (the status says how it ended: said once)
    const players = (ui.lang === "fr" && s.players_fr) || s.players;   // a side's default name in French
    $("#name-white").textContent = players.white;
    $("#name-black").textContent = players.black;
    $("#player-white").classList.toggle("to-move", !over && s.turn === "white");
    $("#player-black").classList.toggle("to-move", !over && s.turn === "black");

    const problems = $("#problems");
    problems.textContent = "";
    // The server picks what goes under the status (the board's latest problem while it is
    // wrong), no text said twice.
    const current = (ui.lang === "fr" && s.notes_fr) || s.notes || [];
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
    renderMoves($("#moves"), (ui.lang === "fr" && s.moves.san_fr) || s.moves.san, startNumbering(s), null, null);

    const promo = $("#promotion");
    promo.hidden = !s.promotion;
    for (const b of promo.querySelectorAll("button")) {
      const p = b.dataset.piece;
      const white = !s.promotion || s.promotion.color !== "black";
      const g = document.createElement("span");
      g.className = "glyph " + (white ? "w" : "b");
      g.innerHTML = pieceHtml(white ? p.toUpperCase() : p);
      b.replaceChildren(g, ` ${LETTERS[ui.lang][p]}`);
      b.title = PIECE_NAMES[ui.lang][p];
      b.setAttribute("aria-pressed", s.promotion && s.promotion.piece === p ? "true" : "false");
    }

    const opp = s.opponent || { kind: "none", sides: [], assistance_allowed: true };
    const theirs = new Set(opp.sides || []);   // the sides played off the board (engine, online)
    renderOpponent(s, opp);
    renderOnline(s, opp, over);

    // An offer of the board's side to the other end waits for its answer; one from the other
    // end (or across the board) is answered here.
    const offer = $("#draw-offer");
    offer.hidden = !s.draw_offer || over;
    if (s.draw_offer) {
      const who = s.draw_offer === "white" ? "White" : "Black";
      const waiting = opp.kind !== "none" && !theirs.has(s.draw_offer) && theirs.size > 0;
      $("#draw-offer-text").textContent = waiting
        ? w(`draw_offered_waiting_${s.draw_offer}`, `${who} offers a draw; waiting for the answer.`)
        : w(`draw_offered_${s.draw_offer}`, `${who} offers a draw.`);
      $("#draw-accept").hidden = $("#draw-decline").hidden = waiting;
    }
    const tbOffer = $("#takeback-offer");
    tbOffer.hidden = !s.takeback_offer || over;
    if (s.takeback_offer) {
      const who = s.takeback_offer === "white" ? "White" : "Black";
      $("#takeback-offer-text").textContent = w(`takeback_asked_${s.takeback_offer}`,
                                                `${who} asks to take back the last move.`);
    }
    const claim = $("#claim-draw");
    claim.hidden = !(s.claimable_draws && s.claimable_draws.length) || over;
    if (!claim.hidden) claim.textContent = `${w("claim_draw", "Claim a draw")} (${s.claimable_draws.map((c) => w("claim_" + c.replace(/[^a-z]+/g, "_"), c)).join(", ")})`;
    for (const side of ["white", "black"]) {
      $("#offer-" + side).disabled = over || s.draw_offer === side;
      $("#resign-" + side).disabled = over;
      // The computer or the other end decides for its own side.
      $("#offer-" + side).hidden = $("#resign-" + side).hidden = theirs.has(side);
    }
    const c = s.clocks;
    const timed = c.white !== null || c.black !== null;
    // A game without a clock shows no clock boxes (no "-:--:--" to wonder about).
    for (const side of ["white", "black"]) $("#clock-" + side).hidden = !timed;
    const pause = $("#pause");
    pause.textContent = c.paused ? w("resume", "Resume clock") : w("pause", "Pause clock");
    pause.disabled = over || !timed || (!c.paused && !c.running);
    // Online (no assistance allowed) a takeback is the other end's to grant: no button here.
    const takeback = $("#takeback");
    takeback.disabled = !s.can_takeback;
    takeback.hidden = !opp.assistance_allowed || (!s.settings.takebacks && !s.can_takeback);
    $("#pause").hidden = !timed || opp.kind === "lichess";
    // The coach ([coach]) helps the side to move: a hint may be asked (never online, never the engine's side).
    $("#hint").hidden = !s.hint_available;

    const takeOver = s.take_over || [];
    $("#takeover").hidden = !takeOver.length;
    for (const side of ["white", "black"]) {
      const b = $("#takeover-" + side);
      b.hidden = !takeOver.includes(side);
      if (b.hidden) disarm(b);
    }
    const takenOver = (!over && opp.takeover) || {};
    $("#giveback").hidden = !Object.keys(takenOver).length;
    for (const side of ["white", "black"]) $("#giveback-" + side).hidden = !takenOver[side];
  }

  // Online: the other side's chat and answers, its leaving (and the claims it allows), the
  // countdown before Lichess aborts a game nobody starts, and the board seen from the board's side.
  function renderOnline(s, opp, over) {
    const online = s.online || {};
    const auto = online.orientation === "black";
    if (auto !== ui.autoFlip) {
      ui.autoFlip = auto;
      $(".play").classList.toggle("flipped", flipped());
      ui.squares = {};
      buildBoard($("#board"), ui.squares, true);
    }
    const notice = $("#online-notice");
    notice.hidden = !online.notice;
    const said = (ui.lang === "fr" && online.notice_fr) || online.notice || "";
    notice.textContent = said && !/[.!?]$/.test(said) ? said + "." : said;
    const first = $("#first-move");
    first.hidden = online.first_move_ms === null || online.first_move_ms === undefined || over;
    if (!first.hidden) {
      first.textContent = wf(`first_move_${s.turn}`, "{s} s to make the first move, or Lichess aborts the game.",
                             { s: Math.ceil(online.first_move_ms / 1000) });
    }
    const away = $("#away");
    const gone = opp.away;
    away.hidden = !gone || over;
    if (gone) {
      const name = opp.name || w("other_player", "The other player");
      const wait = gone.claim_win_in_seconds;
      $("#away-text").textContent = wait ? wf("away_wait", "{name} left the game: you may claim the win in {s} s.", { name, s: wait })
        : wf("away_claim", "{name} left the game: claim the win, or a draw.", { name });
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

  function linkWord(state) { return w(`link_${state}`, LINK_WORDS[state] || state); }

  const LINK_WORDS = { connecting: "connecting…", connected: "connected", reconnecting: "reconnecting…",
                       failed: "failed", closed: "stopped" };

  function renderOpponent(s, opp) {
    const line = $("#opponent");
    line.hidden = opp.kind === "none";
    if (line.hidden) return;
    let text = (ui.lang === "fr" && opp.text_fr) || opp.text;   // the server's words, in the page's language
    if (!text) {
      const sides = (opp.sides || []).map((x) => (x === "white" ? "White" : "Black")).join(" and ");
      const name = opp.name || (opp.kind === "lichess" ? "Lichess" : "Stockfish");
      text = (opp.kind === "lichess" ? `Online on Lichess${sides ? `: ${name} plays ${sides}` : ""}`
        : `${name} plays ${sides || "no side yet"}`) + ".";
    }
    $("#opponent-text").textContent = text;
    const link = $("#opponent-link");
    const state = opp.link ? opp.link.state : "";
    link.dataset.state = state;
    link.textContent = state ? linkWord(state) + (opp.link.detail && state !== "connected" ? ` (${opp.link.detail})` : "") : "";
    link.title = opp.link && opp.link.detail ? opp.link.detail : "";
  }

  function renderSettings(s) {
    const form = $("#settings");
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
    renderLichess(s.lichess || {});
  }

  function renderLichess(l) {
    let text;
    if (l.logged_in) {
      const state = l.link ? l.link.state : "";
      text = l.account ? wf("lichess_signed_in", "Account {account}", { account: l.account }) : w("lichess_token_kept", "Token kept");
      text += state ? `: ${linkWord(state)}` : "";
      if (l.link && l.link.detail && state !== "connected") text += ` (${l.link.detail})`;
      text += ".";
      if (l.game) text += ` ${wf("lichess_playing", "Playing game {game}.", { game: l.game })}`;
    } else {
      text = w("lichess_none", "Not connected. Paste a Lichess API token to play your online games on this board; it is kept on the board and never shown again.");
    }
    const failed = !!(l.logged_in && l.link && l.link.state === "failed");
    if (failed) {
      // A refused token (401) or another failure: said plainly, and a new token may be entered.
      text = wf("lichess_failed", "Lichess is not connected: {detail}. Paste a new token to try again.",
                { detail: l.link.detail || w("link_failed_detail", "the link failed") });
    }
    const el = $("#lichess-state");
    el.textContent = text;
    el.dataset.state = l.logged_in ? (l.link ? l.link.state : "connecting") : "";
    $("#lichess-form").hidden = !!l.logged_in && !failed;
    $("#lichess-logout").hidden = !l.logged_in;
  }

  function renderSim(s) {
    const box = $("#sim");
    box.hidden = !s.sim;
    document.body.classList.toggle("simulator", !!s.sim);
    if (!s.sim) return;
    const hand = $("#hand");
    hand.textContent = "";
    if (ui.handIndex !== null && ui.handIndex >= s.sim.hand.length) ui.handIndex = null;
    s.sim.hand.forEach((h, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "held " + colourOf(h.piece);
      b.innerHTML = pieceHtml(h.piece);
      b.title = `from ${h.from} (click to put this one down next)`;
      b.dataset.piece = h.piece;
      b.setAttribute("aria-pressed", ui.handIndex === i ? "true" : "false");
      b.addEventListener("click", () => { ui.handIndex = ui.handIndex === i ? null : i; renderSim(ui.state); });
      hand.appendChild(b);
    });
    if (!s.sim.hand.length) hand.textContent = w("sim_empty", "empty");
    $("#aside").disabled = !s.sim.hand.length;
  }

  // A move recorded wrong: the other moves that explain the board, one click puts it right (issue 11.6).
  function renderCorrections(s) {
    const box = $("#corrections");
    for (const old of box.querySelectorAll("button")) old.remove();
    const list = s.corrections || [];
    for (const c of list) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.correct = c.uci;
      b.textContent = ui.lang === "fr" ? c.san_fr : c.san;
      b.addEventListener("click", () => act("/api/game/correct", { move: c.uci }));
      box.appendChild(b);
    }
    box.hidden = !list.length;
  }

  function render() {
    const s = ui.state;
    if (!s) return;
    renderBoard(s);
    renderGame(s);
    renderCorrections(s);
    renderSettings(s);
    renderSim(s);
    renderSaid(s);
    renderFailedHelpers(s);
    renderLegend();
    tickClocks();
    document.body.dataset.seq = s.seq;
    document.body.dataset.ready = "1";
    const key = `${s.moves.san.length}|${s.result}`;
    if (key !== ui.libraryKey) {
      ui.libraryKey = key;
      ui.libraryDirty = true;
      if (!$('[data-panel="library"]').hidden) loadLibrary();
    }
  }

  // -- websocket ---------------------------------------------------------------------------------------------
  // The page's own link to the board, in the chosen language (set again when the language changes).
  const PAGE_LINK_WORDS = { up: ["link_live", "live"], connecting: ["link_connecting", "connecting…"],
                            down: ["link_reconnecting", "reconnecting…"] };
  function setLink(state) {
    const el = $("#link");
    el.dataset.state = state;
    el.textContent = w(...PAGE_LINK_WORDS[state]);
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws`);
    ui.ws = ws;
    setLink("connecting");
    ws.addEventListener("open", () => { ui.retry = 0; setLink("up"); });
    ws.addEventListener("message", (event) => {
      let msg;
      try { msg = JSON.parse(event.data); } catch (_) { return; }
      if (msg.type === "hello") {
        ui.hello = msg;
        applyPairing();
        tellLanguage();
      } else if (msg.type === "state") {
        ui.state = msg.state;
        ui.receivedAt = performance.now();
        render();
      }
    });
    ws.addEventListener("close", () => {
      setLink("down");
      const wait = Math.min(10000, 500 * 2 ** ui.retry++);
      setTimeout(connect, wait);
    });
  }

  // -- pairing -----------------------------------------------------------------------------------------------
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

  // -- the simulated hand ---------------------------------------------------------------------------------------
  function simSend(path, body) {
    ui.simQueue = ui.simQueue.then(() => post(path, body)).catch(() => {});
    return ui.simQueue;
  }

  function squareAt(x, y) {
    const el = document.elementFromPoint(x, y);
    const sq = el && el.closest("#board [data-square]");
    return sq ? sq.dataset.square : null;
  }

  function physicalPiece(name) {
    const s = ui.state;
    return !!(s && s.sim && s.sim.pieces[name]);
  }

  function takeIndex() {
    const i = ui.handIndex;
    ui.handIndex = null;
    return i;
  }

  // A click is the server's to read (lift the piece there, put the held one down, or take the piece
  // there with it: /api/sim/click), on the hand as it is when the click arrives: the page's copy may
  // lag a websocket update behind, and a quick second click read on it lifted a piece already in
  // the hand (issue 26.12). A drag lifts its piece once the pointer leaves the square.
  function onPointerDown(event) {
    if (!ui.state || !ui.state.sim || event.button > 0) return;
    const name = squareAt(event.clientX, event.clientY);
    if (!name) return;
    event.preventDefault();
    ui.pointer = { id: event.pointerId, from: name, moved: false, lifted: false, last: name };
  }

  function onPointerMove(event) {
    const p = ui.pointer;
    if (!p || p.id !== event.pointerId) return;
    const name = squareAt(event.clientX, event.clientY);
    if (!name || name === p.last) return;
    if (!p.moved) {                       // a drag: its piece leaves the square
      p.moved = true;
      p.lifted = physicalPiece(p.from);
      if (p.lifted) simSend("/api/sim/lift", { square: p.from });
    }
    p.last = name;
    if (p.lifted && !physicalPiece(name)) simSend("/api/sim/pass", { squares: [name] });
  }

  function onPointerUp(event) {
    const p = ui.pointer;
    if (!p || p.id !== event.pointerId) return;
    ui.pointer = null;
    const name = squareAt(event.clientX, event.clientY);
    if (!p.moved) {
      simSend("/api/sim/click", { square: p.from, index: takeIndex() });
    } else if (p.lifted && name) {
      simSend("/api/sim/place", { square: name, index: takeIndex() });
    }
  }

  // -- what the board announces: the live region, and the phone's own voice ---------------------------
  // A new announcement (the state's "said") goes to the aria-live region, which screen readers read
  // out; a prompt only once it has stood PROMPT_HOLD_MS. The first state of a visit is old news.
  function renderSaid(s) {
    const said = s.said;
    if (!said || said.n === ui.said) return;
    const first = ui.said === null;
    ui.said = said.n;
    if (first) return;
    const text = ui.lang === "fr" ? said.text_fr : said.text;
    clearTimeout(ui.saidTimer);
    const prompt = said.kinds.every((k) => k === "prompt" || k === "setup");
    if (prompt) ui.saidTimer = setTimeout(() => say(text), PROMPT_HOLD_MS);
    else say(text);
  }

  // A helper that failed (the board's voice, the coach's engine): the message says it once a visit,
  // not at every state.
  function renderFailedHelpers(s) {
    for (const failed of s.failed_helpers || []) {
      if (ui.failedShown.has(failed.helper)) continue;
      ui.failedShown.add(failed.helper);
      showMessage((ui.lang === "fr" && failed.text_fr) || failed.text, "error");
    }
  }

  function say(text) {
    if (!text) return;
    const region = $("#said");
    region.textContent = "";   // (the same words again are news again)
    region.textContent = text;
    if (ui.speakHere && "speechSynthesis" in window) {
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

  // The keyboard on the board: the arrows move the focus from square to square as the board is
  // seen, Enter or Space lifts the piece there or puts the held one down (the simulator's click).
  const ARROWS = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
  function onBoardKey(event) {
    const el = event.target.closest && event.target.closest("#board [data-square]");
    if (!el) return;
    const name = el.dataset.square;
    if (event.key in ARROWS) {
      event.preventDefault();
      const [dx, dy] = ARROWS[event.key];
      const sign = flipped() ? -1 : 1;
      const file = FILES.indexOf(name[0]) + dx * sign, rank = Number(name[1]) - 1 + dy * sign;
      if (file < 0 || file > 7 || rank < 0 || rank > 7) return;
      focusSquare(FILES[file] + (rank + 1));
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      const seen = flipped() !== (event.key === "End");
      focusSquare((seen ? "h" : "a") + name[1]);
    } else if ((event.key === "Enter" || event.key === " ") && ui.state && ui.state.sim) {
      event.preventDefault();
      simSend("/api/sim/click", { square: name, index: takeIndex() });
    }
  }

  function focusSquare(name) {
    const old = ui.squares[ui.focus];
    if (old) old.tabIndex = -1;
    ui.focus = name;
    const el = ui.squares[name];
    el.tabIndex = 0;
    el.focus();
  }

  // -- the library ------------------------------------------------------------------------------------------------
  async function loadLibrary() {
    ui.libraryDirty = false;
    let data;
    try {
      const r = await fetch("/api/games", { cache: "no-store" });
      data = await r.json();
    } catch (_) { return; }
    const list = $("#library");
    list.textContent = "";
    if (!data.games.length) {
      const li = document.createElement("li"); li.textContent = w("no_game_yet", "No game recorded yet."); list.appendChild(li);
    }
    for (const g of data.games) {
      const li = document.createElement("li");
      li.dataset.id = g.id;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "game";
      const moves = Math.ceil(g.plies / 2);
      const when = `${g.date.replace(/\./g, "-")}${g.time ? " " + g.time.slice(0, 5) : ""}`;
      const count = moves === 1 ? wf("one_move", "{n} move", { n: moves }) : wf("n_moves", "{n} moves", { n: moves });
      const [white, black] = ui.lang === "fr" && g.white_fr ? [g.white_fr, g.black_fr] : [g.white, g.black];
      const state = g.damaged ? w("library_damaged", "damaged") : g.abandoned ? w("abandoned", "unfinished (abandoned)")
        : g.in_progress ? w("in_progress", "in progress") : g.result;
      const notes = [g.more_games && w("library_more_games", "its first game only"), g.cut && w("library_cut", "a big file: only its beginning is read")].filter(Boolean);
      const damaged = (ui.lang === "fr" && g.damaged_fr) || g.damaged;   // why, in the chosen language
      // A damaged file has no players nor date to show: its name and why, in plain sight (a phone shows no tooltip).
      b.textContent = damaged ? `${g.id}.pgn · ${state}: ${damaged}`
        : `${white} – ${black} · ${state} · ${count} · ${when}${notes.length ? " · " + notes.join(" · ") : ""}`;
      if (damaged || g.problem) b.title = damaged || g.problem;
      b.addEventListener("click", () => openGame(g.id));
      const a = document.createElement("a");
      a.href = `/games/${encodeURIComponent(g.id)}.pgn`;
      a.download = `${g.id}.pgn`;
      a.textContent = "PGN";
      li.append(b, " ", a);
      list.appendChild(li);
    }
    if (ui.viewer && data.games.some((g) => g.id === ui.viewer.id)) openGame(ui.viewer.id, true);
  }

  async function openGame(id, keepPly) {
    let game, pgn;
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(id)}`, { cache: "no-store" });
      if (!r.ok) return;
      game = await r.json();
      pgn = await (await fetch(`/games/${encodeURIComponent(id)}.pgn`, { cache: "no-store" })).text();
    } catch (_) { return; }
    const previous = ui.viewer && ui.viewer.id === id ? ui.viewer.ply : null;
    ui.viewer = { id, game, ply: keepPly && previous !== null ? Math.min(previous, game.fens.length - 1) : game.fens.length - 1 };
    $("#viewer").hidden = false;
    const [white, black] = ui.lang === "fr" && game.white_fr ? [game.white_fr, game.black_fr] : [game.white, game.black];
    $("#viewer-title").textContent = `${white} – ${black}, ${game.date}`;
    $("#viewer-download").href = `/games/${encodeURIComponent(id)}.pgn`;
    $("#viewer-download").download = `${id}.pgn`;
    $("#viewer-pgn").textContent = pgn;
    if (!ui.viewerSquares) {
      ui.viewerSquares = {};
      buildBoard($("#viewer-board"), ui.viewerSquares, false);
    }
    showPly();
  }

  function showPly() {
    const v = ui.viewer;
    if (!v) return;
    const g = v.game;
    const expected = placement(g.fens[v.ply]);
    const last = v.ply > 0 ? new Set(g.last_moves[v.ply - 1]) : new Set();
    for (let i = 0; i < 64; i++) {
      const el = ui.viewerSquares[NAMES[i]];
      setPiece(el, expected[i], "");
      el.classList.toggle("last", last.has(NAMES[i]));
    }
    $("#v-ply").textContent = `${v.ply} / ${g.fens.length - 1}`;
    const ending = (ui.lang === "fr" && g.ending_fr) || g.ending;   // the ending in the chosen language
    $("#viewer-ending").textContent = g.abandoned ? w("viewer_abandoned", "Unfinished: abandoned.")
      : g.in_progress ? w("viewer_in_progress", "In progress.") : `${g.result}${ending ? " — " + ending : ""}`;
    const start = g.start_fen ? { number: Number(g.start_fen.split(" ")[5]) || 1, black: g.start_fen.split(" ")[1] === "b" } : { number: 1, black: false };
    renderMoves($("#viewer-moves"), g.san[ui.lang] || g.san.en, start, v.ply, (ply) => { v.ply = ply; showPly(); });
    // analysis.js draws the game's analysis and lights the move on the board
    document.dispatchEvent(new CustomEvent("echiquier:viewer", { detail: { id: v.id, game: g, ply: v.ply } }));
  }

  function step(delta) {
    const v = ui.viewer;
    if (!v) return;
    const n = v.game.fens.length - 1;
    v.ply = delta === "first" ? 0 : delta === "last" ? n : Math.max(0, Math.min(n, v.ply + delta));
    showPly();
  }

  // -- wiring ----------------------------------------------------------------------------------------------------------
  // A button that takes two clicks: the first arms it (its text asks to confirm) for a few seconds.
  function armed(button, confirmText, action) {
    button.dataset.label = button.textContent;
    button.addEventListener("click", () => {
      if (button.dataset.armed === "1") {
        disarm(button);
        action();
        return;
      }
      button.dataset.armed = "1";
      button.textContent = typeof confirmText === "function" ? confirmText() : confirmText;
      clearTimeout(button.disarmTimer);
      button.disarmTimer = setTimeout(() => disarm(button), 4000);
    });
  }

  function disarm(button) {
    if (button.dataset.armed !== "1") return;
    button.dataset.armed = "0";
    button.textContent = button.dataset.label;
  }

  function showOpponent() {
    const form = $("#new-game");
    const kind = form.elements.opponent.value;
    $("#ng-local").hidden = kind !== "none";
    $("#ng-engine").hidden = kind !== "engine";
    $("#ng-lichess").hidden = kind !== "lichess";
    $("#ng-clock").hidden = kind === "lichess";
  }

  // The dialog opens on the opponent of the game in progress (the next game likely has the same).
  function prefillNewGame() {
    const s = ui.state;
    if (!s) return;
    const form = $("#new-game");
    const opp = s.opponent || { kind: "none", sides: [] };
    form.elements.opponent.value = ["none", "engine", "lichess"].includes(opp.kind) ? opp.kind : "none";
    if (opp.kind === "engine" && opp.sides && opp.sides.length === 1) form.elements.engine_side.value = opp.sides[0];
    form.elements.engine_level.value = s.settings.engine_level;
    $("#ng-level-out").textContent = form.elements.engine_level.value;
    showOpponent();
  }

  function selectTab(name) {
    if (name === "new" && $('[data-panel="new"]').hidden) prefillNewGame();
    for (const b of $$(".tabs [data-tab]")) b.setAttribute("aria-selected", b.dataset.tab === name ? "true" : "false");
    for (const p of $$("[data-panel]")) p.hidden = p.dataset.panel !== name;
    if (name === "library") loadLibrary();
  }

  function setLang(lang) {
    ui.lang = lang;
    localStorage.setItem("echiquier.lang", lang);
    $("#lang-en").setAttribute("aria-pressed", lang === "en" ? "true" : "false");
    $("#lang-fr").setAttribute("aria-pressed", lang === "fr" ? "true" : "false");
    document.body.dataset.lang = lang;
    applyWords();
    tellLanguage();
    render();
    showPly();
    ui.libraryDirty = true;                 // the list's words too
    if (!$('[data-panel="library"]').hidden) loadLibrary();
  }

  function setFlipped(flipped) {
    ui.flipped = flipped;
    localStorage.setItem("echiquier.flipped", flipped ? "1" : "0");
    $(".play").classList.toggle("flipped", flipped !== ui.autoFlip);
    ui.squares = {};
    buildBoard($("#board"), ui.squares, true);
    render();
  }

  function wire() {
    for (const b of $$(".tabs [data-tab]")) b.addEventListener("click", () => selectTab(b.dataset.tab));
    $("#lang-en").addEventListener("click", () => setLang("en"));
    $("#lang-fr").addEventListener("click", () => setLang("fr"));
    $("#flip").addEventListener("click", () => setFlipped(!ui.flipped));

    $("#pair-open").addEventListener("click", () => showPairing(true));
    $("#pair-close").addEventListener("click", () => showPairing(false));
    $("#pair-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await post("/api/pair", { code: $("#pair-code").value });
        ui.hello.paired = true;
        $("#pair-code").value = "";
        applyPairing();
        showMessage(w("msg_paired", "Paired: this device may now play on the board."));
      } catch (_) { /* the message says why */ }
    });

    for (const side of ["white", "black"]) {
      const name = side === "white" ? "White" : "Black";
      armed($("#resign-" + side), () => w("confirm_resign_" + side, `Confirm: ${name} resigns`),
            () => act("/api/game/resign", { color: side }));
      armed($("#takeover-" + side), () => w("confirm_takeover_" + side, `Confirm: the computer plays ${name}`),
            () => act("/api/game/takeover", { color: side }));
      $("#giveback-" + side).addEventListener("click", () => act("/api/game/giveback", { color: side }));
      $("#offer-" + side).addEventListener("click", () => act("/api/game/draw", { action: "offer", color: side }));
    }
    $("#takeback-accept").addEventListener("click", () => act("/api/game/takeback-offer", { action: "accept" }));
    $("#takeback-decline").addEventListener("click", () => act("/api/game/takeback-offer", { action: "decline" }));
    const other = () => (ui.state && ui.state.draw_offer === "white" ? "black" : "white");
    $("#draw-accept").addEventListener("click", () => act("/api/game/draw", { action: "accept", color: other() }));
    $("#draw-decline").addEventListener("click", () => act("/api/game/draw", { action: "decline", color: other() }));
    $("#claim-draw").addEventListener("click", () => act("/api/game/draw", { action: "claim", color: ui.state.turn }));
    $("#pause").addEventListener("click", () => act("/api/game/clock", { action: ui.state.clocks.paused ? "resume" : "pause" }));
    $("#takeback").addEventListener("click", () => act("/api/game/takeback", {}));
    $("#hint").addEventListener("click", () => act("/api/coach/hint", {}));
    for (const b of $$("#promotion button")) b.addEventListener("click", () => act("/api/game/promotion", { piece: b.dataset.piece }));

    const form = $("#new-game");
    form.elements["tc-preset"].addEventListener("change", () => {
      $("#tc-custom-label").hidden = form.elements["tc-preset"].value !== "custom";
    });
    for (const radio of form.querySelectorAll("[name=opponent]")) radio.addEventListener("change", showOpponent);
    form.elements.variant.addEventListener("change", () => {
      $("#ng-number-label").hidden = form.elements.variant.value !== "chess960-number";
    });
    showOpponent();
    form.elements.engine_level.addEventListener("input", () => {
      $("#ng-level-out").textContent = form.elements.engine_level.value;
    });
    $("#swap-names").addEventListener("click", () => {
      const w = form.elements.white.value;
      form.elements.white.value = form.elements.black.value;
      form.elements.black.value = w;
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      // A game in progress is abandoned by a new one: the first press asks, the second confirms.
      const submit = form.querySelector("[type=submit]");
      const s = ui.state;
      const inProgress = s && s.started && s.result === "*" && (s.moves.san || []).length > 0;
      if (inProgress && submit.dataset.armed !== "1") {
        if (!submit.dataset.label) submit.dataset.label = submit.textContent;
        submit.dataset.armed = "1";
        submit.textContent = w("abandon_confirm", "Confirm: abandon the game in progress (kept as unfinished)");
        clearTimeout(submit.disarmTimer);
        submit.disarmTimer = setTimeout(() => disarm(submit), 6000);
        return;
      }
      disarm(submit);
      const preset = form.elements["tc-preset"].value;
      const opponent = form.elements.opponent.value;
      let body;
      if (opponent === "lichess") {
        body = { opponent };
      } else {
        body = {
          opponent,
          time_control: preset === "custom" ? form.elements["tc-custom"].value : preset,
          rules: form.elements.rules.value,
        };
        const variant = form.elements.variant.value;
        body.variant = variant === "standard" ? "standard" : "chess960";
        if (variant === "chess960-random") body.start_position = -1;
        if (variant === "chess960-number") body.start_position = Number(form.elements.start_position.value);
        if (opponent === "engine") {
          body.engine_side = form.elements.engine_side.value;
          body.engine_level = Number(form.elements.engine_level.value);
          if (form.elements.player.value.trim()) body.player = form.elements.player.value;
        } else {
          Object.assign(body, { white: recordName(form.elements.white.value), black: recordName(form.elements.black.value),
                                colours: form.elements.colours.value });
        }
      }
      try {
        await post("/api/game/new", body);
        selectTab("game");
        showMessage(w("msg_new_game", "New game: set the pieces up if the board asks for it."));
      } catch (_) { /* shown */ }
    });

    const settings = $("#settings");
    settings.addEventListener("change", (event) => {
      const input = event.target;
      if (!input.name) return;
      let value;
      if (input.type === "checkbox") value = input.checked;
      else {
        if (input.value === "" || !input.checkValidity()) { showMessage(`${input.name.replace(/_/g, " ")}: ${input.validationMessage || "not a valid value"}`, "error"); return; }
        value = Number(input.value);
      }
      act("/api/settings", { [input.name]: value });
    });
    settings.elements.brightness.addEventListener("input", () => {
      $("#brightness-out").textContent = Math.round(Number(settings.elements.brightness.value) * 100) + " %";
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
        showMessage(w("msg_token_kept", "Token kept on the board: connecting to Lichess…"));
      } catch (_) { /* the message says why */ }
    });
    $("#lichess-logout").addEventListener("click", () => act("/api/lichess/logout", {}));
    $("#claim-victory").addEventListener("click", () => act("/api/lichess/claim", { what: "victory" }));
    $("#claim-gone-draw").addEventListener("click", () => act("/api/lichess/claim", { what: "draw" }));

    const board = $("#board");
    board.addEventListener("pointerdown", onPointerDown);
    window.addEventListener("pointermove", onPointerMove);
    window.addEventListener("pointerup", onPointerUp);
    window.addEventListener("pointercancel", () => { ui.pointer = null; });
    board.addEventListener("keydown", onBoardKey);
    board.addEventListener("focusin", (event) => {   // a click or Tab: the focus stays where it went
      const el = event.target.closest && event.target.closest("[data-square]");
      if (el && el.dataset.square !== ui.focus) {
        const old = ui.squares[ui.focus];
        if (old) old.tabIndex = -1;
        ui.focus = el.dataset.square;
        el.tabIndex = 0;
      }
    });
    $("#voice-repeat").addEventListener("click", () => askVoice("repeat"));
    $("#board-voice").addEventListener("change", () => tellLanguage(!$("#board-voice").checked));
    $("#voice-describe").addEventListener("click", () => askVoice("describe"));
    const speakHere = $("#speak-here");
    $("#speak-here-label").hidden = !("speechSynthesis" in window);
    speakHere.checked = ui.speakHere;
    speakHere.addEventListener("change", () => {
      ui.speakHere = speakHere.checked;
      localStorage.setItem("echiquier.speak", ui.speakHere ? "1" : "0");
      if (!ui.speakHere && "speechSynthesis" in window) window.speechSynthesis.cancel();
    });
    $("#aside").addEventListener("click", () => simSend("/api/sim/aside", { index: takeIndex() }));
    $("#setup").addEventListener("click", () => simSend("/api/sim/setup", {}));

    $("#v-first").addEventListener("click", () => step("first"));
    $("#v-prev").addEventListener("click", () => step(-1));
    $("#v-next").addEventListener("click", () => step(1));
    $("#v-last").addEventListener("click", () => step("last"));
    document.addEventListener("keydown", (event) => {
      if ($('[data-panel="library"]').hidden || !ui.viewer) return;
      if (event.target.closest && event.target.closest("input, select, textarea")) return;
      if (event.key === "ArrowLeft") step(-1);
      else if (event.key === "ArrowRight") step(1);
    });
  }

  function init() {
    $(".play").classList.toggle("flipped", flipped());
    buildBoard($("#board"), ui.squares, true);
    wire();
    setLang(ui.lang);
    loadWords();
    connect();
    setInterval(tickClocks, 100);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
