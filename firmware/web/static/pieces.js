// The pieces, drawn for this project as simple SVG (MIT like the rest): the same on every device,
// white pieces light with a dark outline, black pieces dark with a light edge. viewBox 0 0 45 45.
const BASE = "M11 39h23v-3.5c0-1.5-1-2.5-2.5-2.5h-18C12 33 11 34 11 35.5z";
const SHAPES = {
  p: BASE + " M15 33c1-4 3.5-7 5-8.5a5.5 5.5 0 1 1 5 0c1.5 1.5 4 4.5 5 8.5z",
  r: BASE + " M14 33l1.5-15h14l1.5 15z M12.5 18h20v-7h-4v3h-3v-3h-6v3h-3v-3h-4z",
  n: BASE + " M14 33c0-6 3-9 6-12-3 1-6 1-8-1l6-7c1-3 3-5 6-5 6 0 10 6 10 14 0 4-1 8-2 11z",
  b: BASE + " M15 33c0-5 2-8 4-10-3-2-3-7 0-10 1-1 2-2 3.5-3.5 1.5 1.5 2.5 2.5 3.5 3.5 3 3 3 8 0 10 2 2 4 5 4 10z" +
     " M22.5 6.5a2 2 0 1 1 0.01 0z",
  q: BASE + " M13 33l-3-19 6 9 2-12 4.5 11 4.5-11 2 12 6-9-3 19z M10 12a2 2 0 1 1 .01 0z M18 9a2 2 0 1 1 .01 0z" +
     " M22.5 8a2 2 0 1 1 .01 0z M27 9a2 2 0 1 1 .01 0z M35 12a2 2 0 1 1 .01 0z",
  k: BASE + " M13 33c-2-5-3-10 2-13 3-2 6-1 7.5 1.5 1.5-2.5 4.5-3.5 7.5-1.5 5 3 4 8 2 13z" +
     " M21 16v-4h-3v-3h3V6h3v3h3v3h-3v4z",
};

export function pieceSvg(symbol) {
  const white = symbol === symbol.toUpperCase();
  const d = SHAPES[symbol.toLowerCase()];
  if (!d) return "";
  const fill = white ? "#fafafa" : "#202020";
  const stroke = white ? "#151515" : "#e8e8e8";
  return `<svg class="piece-svg" viewBox="0 0 45 45" aria-hidden="true" data-piece="${symbol}">` +
    `<path d="${d}" fill="${fill}" stroke="${stroke}" stroke-width="1.5" stroke-linejoin="round"/></svg>`;
}

// "w" or "b": a piece's colour, as the page's classes name it.
export function colourOf(symbol) { return symbol === symbol.toUpperCase() ? "w" : "b"; }
