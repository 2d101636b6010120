// A button that takes two clicks: the first arms it (its text asks to confirm) for a few seconds.
// words.js leaves an armed button's text alone, and gives its label the new language's words.

// ``confirmText`` is the words asking to confirm (a function: read at the click, in the page's language).
export function armed(button, confirmText, action) {
  button.dataset.label = button.textContent;
  button.addEventListener("click", () => {
    if (button.dataset.armed === "1") {
      disarm(button);
      action();
      return;
    }
    arm(button, confirmText(), 4000);
  });
}

// ``button`` asks to confirm with ``text`` for ``ms``, then shows its label again.
export function arm(button, text, ms) {
  if (!button.dataset.label) button.dataset.label = button.textContent;
  button.dataset.armed = "1";
  button.textContent = text;
  clearTimeout(button.disarmTimer);
  button.disarmTimer = setTimeout(() => disarm(button), ms);
}

export function disarm(button) {
  if (button.dataset.armed !== "1") return;
  button.dataset.armed = "0";
  button.textContent = button.dataset.label;
}
