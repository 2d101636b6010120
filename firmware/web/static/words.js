// The page's words (GET /api/words, firmware/words/): a word in the chosen language, the elements
// marked data-words relabelled, the LED legend, and the language: chosen (chooseLang), and its
// buttons, one per language the board offers. The script writes no word of its own: until the
// words come, the page shows the English of index.html.
import { $, $$, ui, render, onRender } from "./ui.js";

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

// The LED legend: the roles lit now (the state's lit_roles), each in its colour, in the chosen language.
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
onRender(renderLegend);   // drawn again at each state: the roles lit change with the board

// The language shown: the one chosen on this device (its buttons, remembered), else the board's
// ("[web] language"), else the browser's first language whose primary subtag ("fr" of "fr-CA")
// the board offers, else English.
const REMEMBERED = "echiquier.lang";
function chooseLang(offered, configured) {
  const browser = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language])
    .map((tag) => String(tag || "").toLowerCase().split("-")[0]);
  const wanted = [localStorage.getItem(REMEMBERED), configured, ...browser];
  return wanted.find((lang) => lang && offered.includes(lang)) || "en";
}

// A button per language the words offer ("EN", "FR"...), named in its own language in its title.
function renderLangButtons() {
  const group = $("#langs");
  for (const lang of Object.keys(ui.words.page)) {
    const b = document.createElement("button");
    b.id = `lang-${lang}`;
    b.className = "small";
    b.lang = lang;
    b.textContent = lang.toUpperCase();
    try { b.title = new Intl.DisplayNames([lang], { type: "language" }).of(lang); } catch (_) { /* no title */ }
    b.addEventListener("click", () => setLang(lang));
    group.appendChild(b);
  }
}

function showLang(lang) {
  ui.lang = lang;
  for (const b of $$("#langs button")) b.setAttribute("aria-pressed", b.lang === lang ? "true" : "false");
  document.body.dataset.lang = lang;
  applyWords();   // (<html lang> too)
  render();
}

export async function loadWords() {
  try {
    const r = await fetch("/api/words", { cache: "no-store" });
    if (!r.ok) return;
    ui.words = await r.json();
  } catch (_) { return; /* the English of the HTML stays */ }
  renderLangButtons();
  showLang(chooseLang(Object.keys(ui.words.page), ui.words.language));
}

// A language chosen on the page: remembered on this device, over the board's and the browser's.
export function setLang(lang) {
  localStorage.setItem(REMEMBERED, lang);
  showLang(lang);
  for (const fn of switched) fn();
}

onWords(() => $("#langs").setAttribute("aria-label", w("language")));
