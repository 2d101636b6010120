// The side's tabs (the game, a new game, the library, the settings): one panel shown at a time;
// a panel's module may hear it being selected (onSelect).
import { $, $$ } from "./ui.js";

const selected = {};   // tab -> what its module does when it is selected: fn(wasHidden)
export function onSelect(name, fn) { (selected[name] = selected[name] || []).push(fn); }

export function shown(name) { return !$(`[data-panel="${name}"]`).hidden; }

export function selectTab(name) {
  const wasHidden = !shown(name);
  for (const b of $$(".tabs [data-tab]")) b.setAttribute("aria-selected", b.dataset.tab === name ? "true" : "false");
  for (const p of $$("[data-panel]")) p.hidden = p.dataset.panel !== name;
  for (const fn of selected[name] || []) fn(wasHidden);
}

for (const b of $$(".tabs [data-tab]")) b.addEventListener("click", () => selectTab(b.dataset.tab));
