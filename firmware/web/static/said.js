// The state's messages said in the page's language (firmware/words/message.py's twin): a message
// is a template's key and its values; GET /api/words gives each language's templates, names and
// SAN letters ("messages"). A value is a string or a number as it is, a nested message, or an
// object of one kind that each language says its own way.
import { ui } from "./ui.js";

function catalogue() {
  const messages = ui.words && ui.words.messages;
  return messages && (messages[ui.lang] || messages.en);
}

const lowerFirst = (text) => (text ? text[0].toLowerCase() + text.slice(1) : text);

// A template filled in as Python's str.format does ({{ and }} are braces).
function fill(template, values) {
  return template.replace(/\{\{|\}\}|\{(\w+)\}/g, (all, name) =>
    (all === "{{" ? "{" : all === "}}" ? "}" : name in values ? values[name] : all));
}

// A SAN in English letters (K Q R B N) in the page's language's letters.
export function sanIn(text) {
  const c = catalogue();
  if (!c || !text) return text || "";
  return text.replace(/[KQRBN]/g, (letter) => c.letters[letter] || letter);
}

// A player's name as the page shows it: a side's default name ("White" playing White) is the side.
export function playerName(name, side) {
  const english = ui.words && ui.words.messages && ui.words.messages.en;
  const c = catalogue();
  return english && c && name === english.sides[side] ? c.sides[side] : name;
}

function value(v, c) {
  if (v === null || v === undefined) return "";
  if (typeof v === "string" || typeof v === "number") return String(v);
  if (Array.isArray(v)) return v.map((item) => value(item, c)).join(", ");
  if ("key" in v) {
    const templates = v.kind === "refusals" ? c.refusals : c.prompts;
    const values = {};
    for (const [name, inner] of Object.entries(v.values || {})) values[name] = value(inner, c);
    return fill(templates[v.key] || v.key, values);
  }
  if ("side" in v) return c.sides[v.side];
  if ("side_played" in v) return c.sides_played[v.side_played];
  if ("piece" in v) return (v.article === false ? c.pieces : c.the_pieces)[v.piece];
  if ("san" in v) return sanIn(v.san);
  if ("ended" in v) return c.terminations[v.ended] || v.ended;
  if ("void" in v) return c.void_statuses[v.void] || v.void;
  if ("and" in v) {
    const items = v.and.map((item) => value(item, c));
    if (!items.length) return "";
    return items.length === 1 ? items[0] : fill(c.prompts.and, { items: items.slice(0, -1).join(", "), last: items[items.length - 1] });
  }
  if ("lower" in v) return lowerFirst(value(v.lower, c));
  if ("then" in v) {
    const items = v.then.map((item) => value(item, c));
    return items.length ? items.reduce((first, next) => fill(c.prompts.then, { first, next })) : "";
  }
  if ("steps" in v) {
    const items = v.steps.map((item) => value(item, c));
    const text = [items[0], ...items.slice(1).map(lowerFirst)].join(", ");
    return v.more ? `${text} (+${fill(c.prompts.n_more, { n: v.more })})` : text;
  }
  if ("english" in v) return ui.lang === "en" ? v.english : v.otherwise || "";
  return "";
}

// A message (or any value) said in the page's language; "" for none, or before the words came.
export function said(message) {
  const c = catalogue();
  if (message === null || message === undefined || !c) return "";
  try { return value(message, c); } catch (_) { return ""; }   // (a message it cannot say never stops the page)
}
