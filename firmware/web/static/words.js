// The page's words (GET /api/words, firmware/words/): a word in the chosen language, the elements
// marked data-words relabelled, the LED legend, and the language buttons, one for each language the
// words come in. The script writes no word of its own: until the words come, the page shows the
// English of index.html.
import { $, $$, ui, render } from "./ui.js";

const relabel = [];    // what else says its words again when they come or the language changes
const switched = [];   // what else follows a change of language (the board's voice, the library)
export function onWords(fn) { relabel.push(fn); }
export function onLanguage(fn) { switched.push(fn); }

// A word of the page in the chosen language (``fallback``, or the key, when the catalogue lacks it).
export function w(key, fallback) {
  const words = ui.words && ui.words.page[ui.lang];
  return (words && words[key]) || fallback || key;
}

// A word with its {placeholders} filled in: wf("away_wait", { name, s }).
export function wf(key, values) {
  return w(key).replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
}

function applyWords() {
  if (!ui.words) return;
  for (const el of $$("[data-words]")) {
    if (el.dataset.armed === "1") continue;   // asking to confirm: its label comes back when disarmed
    // the words in the element, its leading and trailing spaces kept (beside an input)
    const [, lead, , trail] = el.textContent.match(/^(\s*)([\s\S]*?)(\s*)$/);
    const text = lead + w(el.dataset.words, el.textContent.trim()) + trail;
    if (el.textContent !== text) el.textContent = text;
    if (el.dataset.label !== undefined) el.dataset.label = text;
  }
  document.documentElement.lang = ui.lang;
  renderLegend();
  for (const fn of relabel) fn();
}

// The LED legend: each role in its configured colour, in the chosen language.
function renderLegend() {
  const list = $("#led-legend-list");
  if (!list) return;
  const roles = ui.words.leds[ui.lang];
  list.textContent = "";
  for (const role of Object.keys(roles)) {
    const li = document.createElement("li");
    li.dataset.role = role;
    const dot = document.createElement("span");
    dot.className = "led-dot";
    dot.style.background = ui.words.colours[role];
    li.append(dot, " " + roles[role]);
    list.appendChild(li);
  }
}

// A button for each language of the words (index.html has EN and FR until they come), its title
// in its own language ("Deutsche Buchstaben: K D T L S").
function languageButtons() {
  for (const lang of Object.keys(ui.words.page)) {
    let b = $(`#langs [data-lang="${lang}"]`);
    if (!b) {
      b = document.createElement("button");
      Object.assign(b, { id: `lang-${lang}`, className: "small", textContent: lang.toUpperCase() });
      b.dataset.lang = lang;
      b.addEventListener("click", () => setLang(lang));
      $("#langs").appendChild(b);
    }
    b.title = ui.words.page[lang].lang_letters;
    b.setAttribute("aria-pressed", lang === ui.lang ? "true" : "false");
  }
}

export async function loadWords() {
  try {
    const r = await fetch("/api/words", { cache: "no-store" });
    if (r.ok) {
      ui.words = await r.json();
      languageButtons();
      if (ui.lang in ui.words.page) { applyWords(); render(); } else setLang("en");
    }
  } catch (_) { /* the English of the HTML stays */ }
}

export function setLang(lang) {
  ui.lang = lang;
  localStorage.setItem("echiquier.lang", lang);
  for (const b of $$("#langs [data-lang]")) b.setAttribute("aria-pressed", b.dataset.lang === lang ? "true" : "false");
  document.body.dataset.lang = lang;
  applyWords();
  render();
  for (const fn of switched) fn();
}

for (const b of $$("#langs [data-lang]")) b.addEventListener("click", () => setLang(b.dataset.lang));
