// The board as SVG: pure functions from a board model to SVG text (as python-chess's svg.py
// draws a position), one component for both games and every size, markers and heat maps as
// data (as Sabaki's board does).
//
// A model: {game, size, board: "012..." (reading order), last: [r, c] | null,
//   legal: "0101..." | null, showLegal, ko, toPlay: "B" | "W", coords: true,
//   dead: [[r, c]], territory: {B: [...], W: [...]}, heat: [{point, label, sub, strength,
//   best}], pv: [{point, color, n}], hint: [r, c] | null, ghost: [r, c] | null}
//
// Coordinates: Go columns skip I and row 1 is at the bottom (GTP); Othello columns a.. and
// row 1 at the top.

const GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
const NS = "http://www.w3.org/2000/svg";

export function columnLabel(game, size, col) {
  return game === "othello" ? String.fromCharCode(97 + col) : GTP_COLUMNS[col];
}

export function rowLabel(game, size, row) {
  return game === "othello" ? String(row + 1) : String(size - row);
}

export function pointName(game, size, point) {
  return columnLabel(game, size, point[1]) + rowLabel(game, size, point[0]);
}

export function starPoints(size) {
  // The hoshi as Go boards draw them: the 3-3 points up to 12x12 and the 4-4 points from 13x13,
  // the centre of odd boards from 9x9, and the side points of odd boards from 15x15 (19x19: 9).
  if (size < 7) return [];
  const edge = size >= 13 ? 3 : 2;
  const far = size - 1 - edge;
  const mid = (size - 1) / 2;
  const out = [[edge, edge], [edge, far], [far, edge], [far, far]];
  if (size % 2 === 1 && size >= 9) out.push([mid, mid]);
  if (size % 2 === 1 && size >= 15) out.push([edge, mid], [mid, edge], [mid, far], [far, mid]);
  return out;
}

// Geometry: Go stones sit on intersections at integer coordinates 0..size-1; Othello discs in
// squares whose centres are at 0..size-1 too, the squares' edges at -0.5 .. size-0.5.
export function viewBox(model) {
  const pad = model.coords === false ? 0.75 : 1.45;
  return [-pad, -pad, model.size - 1 + 2 * pad, model.size - 1 + 2 * pad];
}

export function pointAt(svg, model, clientX, clientY) {
  // The board point under a screen position, or null.
  const ctm = svg.getScreenCTM();
  if (!ctm) return null;
  const p = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
  const col = Math.round(p.x);
  const row = Math.round(p.y);
  if (row < 0 || col < 0 || row >= model.size || col >= model.size) return null;
  if (Math.abs(p.x - col) > 0.5 || Math.abs(p.y - row) > 0.5) return null;
  return [row, col];
}

function fmt(x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(3);
}

function esc(text) {
  return String(text).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
}

// -- static layer: background, lines, star points, coordinates -------------------------------
export function backgroundSvg(model) {
  const { game, size } = model;
  const [x, y, w, h] = viewBox(model);
  const out = [];
  out.push(
    `<defs>` +
      `<radialGradient id="g-black" cx="35%" cy="30%" r="70%"><stop offset="0" stop-color="#6b6b6b"/><stop offset="0.45" stop-color="#222"/><stop offset="1" stop-color="#000"/></radialGradient>` +
      `<radialGradient id="g-white" cx="35%" cy="30%" r="75%"><stop offset="0" stop-color="#ffffff"/><stop offset="0.7" stop-color="#e6e6e2"/><stop offset="1" stop-color="#b9b9b3"/></radialGradient>` +
      `<linearGradient id="g-wood" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#e8c07a"/><stop offset="0.5" stop-color="#dcae62"/><stop offset="1" stop-color="#d09c50"/></linearGradient>` +
      `<radialGradient id="g-felt" cx="50%" cy="40%" r="80%"><stop offset="0" stop-color="#2f8a4a"/><stop offset="1" stop-color="#1e6a36"/></radialGradient>` +
      `</defs>`,
  );
  if (game === "othello") {
    out.push(`<rect class="frame" x="${x}" y="${y}" width="${w}" height="${h}" rx="0.2" fill="#123d22"/>`);
    out.push(`<rect x="-0.5" y="-0.5" width="${size}" height="${size}" fill="url(#g-felt)"/>`);
    for (let i = 0; i <= size; i++) {
      const t = i - 0.5;
      out.push(`<line x1="-0.5" y1="${t}" x2="${size - 0.5}" y2="${t}" class="grid othello"/>`);
      out.push(`<line x1="${t}" y1="-0.5" x2="${t}" y2="${size - 0.5}" class="grid othello"/>`);
    }
    if (size === 8) {
      for (const [r, c] of [[2, 2], [2, 6], [6, 2], [6, 6]]) {
        out.push(`<circle cx="${c - 0.5}" cy="${r - 0.5}" r="0.07" fill="#0b2b16"/>`);
      }
    }
  } else {
    out.push(`<rect class="frame" x="${x}" y="${y}" width="${w}" height="${h}" rx="0.15" fill="url(#g-wood)"/>`);
    for (let i = 0; i < size; i++) {
      out.push(`<line x1="0" y1="${i}" x2="${size - 1}" y2="${i}" class="grid"/>`);
      out.push(`<line x1="${i}" y1="0" x2="${i}" y2="${size - 1}" class="grid"/>`);
    }
    for (const [r, c] of starPoints(size)) {
      out.push(`<circle cx="${c}" cy="${r}" r="0.11" class="star"/>`);
    }
  }
  if (model.coords !== false) {
    const offset = game === "othello" ? 1.0 : 0.95;
    for (let i = 0; i < size; i++) {
      const col = esc(columnLabel(game, size, i));
      const row = esc(rowLabel(game, size, i));
      out.push(`<text x="${i}" y="${-offset}" class="coord">${col}</text>`);
      out.push(`<text x="${i}" y="${size - 1 + offset}" class="coord">${col}</text>`);
      out.push(`<text x="${-offset}" y="${i}" class="coord">${row}</text>`);
      out.push(`<text x="${size - 1 + offset}" y="${i}" class="coord">${row}</text>`);
    }
  }
  return out.join("");
}

// -- dynamic layer: stones, marks, analysis ---------------------------------------------------
function stone(r, c, color, extra = "") {
  const fill = color === "B" ? "url(#g-black)" : "url(#g-white)";
  const cls = color === "B" ? "stone black" : "stone white";
  return `<circle cx="${c}" cy="${r}" r="0.47" fill="${fill}" class="${cls} ${extra}" data-point="${r},${c}"/>`;
}

function inList(list, r, c) {
  return (list || []).some((p) => p && p[0] === r && p[1] === c);
}

export function stonesSvg(model) {
  const { size, board } = model;
  const out = [];
  const territory = model.territory || { B: [], W: [] };
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      const v = board[r * size + c];
      if (v === "1" || v === "2") {
        const dead = inList(model.dead, r, c);
        out.push(stone(r, c, v === "1" ? "B" : "W", dead ? "dead" : ""));
        if (dead) {
          out.push(`<path d="M${c - 0.22} ${r - 0.22}L${c + 0.22} ${r + 0.22}M${c + 0.22} ${r - 0.22}L${c - 0.22} ${r + 0.22}" class="dead-mark"/>`);
        }
      }
    }
  }
  for (const color of ["B", "W"]) {
    for (const [r, c] of territory[color] || []) {
      out.push(`<rect x="${c - 0.16}" y="${r - 0.16}" width="0.32" height="0.32" class="territory ${color === "B" ? "black" : "white"}" data-owner="${color}"/>`);
    }
  }
  if (model.showLegal && model.legal) {
    for (let i = 0; i < size * size; i++) {
      if (model.legal[i] === "1") {
        const r = Math.floor(i / size);
        const c = i % size;
        out.push(`<circle cx="${c}" cy="${r}" r="0.12" class="legal ${model.toPlay === "B" ? "black" : "white"}" data-legal="${r},${c}"/>`);
      }
    }
  }
  if (model.last) {
    const [r, c] = model.last;
    const v = board[r * size + c];
    const cls = v === "1" ? "on-black" : "on-white";
    out.push(`<circle cx="${c}" cy="${r}" r="0.17" class="last ${cls}" data-last="${r},${c}"/>`);
  }
  if (model.ko) {
    const [r, c] = model.ko;
    out.push(`<rect x="${c - 0.2}" y="${r - 0.2}" width="0.4" height="0.4" class="ko"/>`);
  }
  return out.join("");
}

export function heatSvg(model) {
  // Candidate moves: a disc whose strength shows the visits (Go) or the rank, with the win
  // rate or score written on it; the engine's choice outlined.
  const out = [];
  for (const h of model.heat || []) {
    if (!h.point) continue;
    const [r, c] = h.point;
    const alpha = 0.25 + 0.6 * Math.max(0, Math.min(1, h.strength));
    out.push(
      `<g class="heat${h.best ? " best" : ""}${h.exact ? " exact" : ""}" data-heat="${r},${c}">` +
        `<circle cx="${c}" cy="${r}" r="0.44" style="fill-opacity:${alpha.toFixed(2)}" fill="${h.fill || "#3b82f6"}"/>` +
        `<text x="${c}" y="${r - (h.sub ? 0.06 : -0.02)}" class="heat-label">${esc(h.label)}</text>` +
        (h.sub ? `<text x="${c}" y="${r + 0.25}" class="heat-sub">${esc(h.sub)}</text>` : "") +
        `</g>`,
    );
  }
  return out.join("");
}

export function overlaySvg(model) {
  const out = [];
  if (model.hint) {
    const [r, c] = model.hint;
    out.push(`<circle cx="${c}" cy="${r}" r="0.42" class="hint"/>`);
  }
  for (const p of model.pv || []) {
    if (!p.point) continue;
    const [r, c] = p.point;
    out.push(stone(r, c, p.color, "pv"));
    out.push(`<text x="${c}" y="${r + 0.02}" class="pv-number ${p.color === "B" ? "on-black" : "on-white"}">${p.n}</text>`);
  }
  if (model.ghost) {
    const [r, c] = model.ghost;
    out.push(`<circle cx="${c}" cy="${r}" r="0.46" class="ghost ${model.toPlay === "B" ? "black" : "white"}"/>`);
  }
  return out.join("");
}

export class BoardView {
  // One SVG element, redrawn from models; the static layer is kept while game and size stay.
  constructor(svg) {
    this.svg = svg;
    this.key = null;
    this.svg.setAttribute("xmlns", NS);
    this.svg.innerHTML = `<g class="bg"></g><g class="stones"></g><g class="heatmap"></g><g class="overlay"></g>`;
    this.layers = {
      bg: this.svg.querySelector(".bg"),
      stones: this.svg.querySelector(".stones"),
      heat: this.svg.querySelector(".heatmap"),
      overlay: this.svg.querySelector(".overlay"),
    };
    this.model = null;
  }

  draw(model) {
    const key = `${model.game}/${model.size}/${model.coords !== false}`;
    if (key !== this.key) {
      this.svg.setAttribute("viewBox", viewBox(model).map(fmt).join(" "));
      this.layers.bg.innerHTML = backgroundSvg(model);
      this.key = key;
      this.svg.dataset.game = model.game;
      this.svg.dataset.size = String(model.size);
    }
    this.layers.stones.innerHTML = stonesSvg(model);
    this.layers.heat.innerHTML = heatSvg(model);
    this.layers.overlay.innerHTML = overlaySvg(model);
    this.model = model;
  }

  drawOverlay(changes) {
    // Redraw only the overlay (hover: ghost stone, principal variation).
    if (!this.model) return;
    this.model = { ...this.model, ...changes };
    this.layers.overlay.innerHTML = overlaySvg(this.model);
  }
}

// -- the graph under the board -----------------------------------------------------------------
export function graphSvg(values, unit, current, width = 600, height = 110) {
  // Black's win rate (0..1, 50% in the middle) or disc difference over the moves of the line.
  const n = values.length;
  if (!n || values.every((v) => v === null || v === undefined)) return "";
  const step = n > 1 ? width / (n - 1) : width;
  let lo = 0;
  let hi = 1;
  if (unit !== "win rate") {
    const m = Math.max(8, ...values.filter((v) => v !== null).map((v) => Math.abs(v)));
    lo = -m;
    hi = m;
  }
  const y = (v) => height - ((v - lo) / (hi - lo)) * height;
  const parts = [];
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" class="graph-bg"/>`);
  parts.push(`<line x1="0" y1="${y((lo + hi) / 2)}" x2="${width}" y2="${y((lo + hi) / 2)}" class="graph-mid"/>`);
  let path = "";
  let area = "";
  let started = false;
  values.forEach((v, i) => {
    if (v === null || v === undefined) return;
    const px = (i * step).toFixed(1);
    const py = y(v).toFixed(1);
    path += `${started ? "L" : "M"}${px} ${py}`;
    started = true;
  });
  if (path) {
    const first = values.findIndex((v) => v !== null && v !== undefined);
    let last = n - 1;
    while (last >= 0 && (values[last] === null || values[last] === undefined)) last--;
    area = `${path}L${(last * step).toFixed(1)} ${height}L${(first * step).toFixed(1)} ${height}Z`;
    parts.push(`<path d="${area}" class="graph-area"/>`);
    parts.push(`<path d="${path}" class="graph-line"/>`);
  }
  if (current !== null && current !== undefined && current < n) {
    const cx = (current * step).toFixed(1);
    parts.push(`<line x1="${cx}" y1="0" x2="${cx}" y2="${height}" class="graph-cursor"/>`);
  }
  return `<svg viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" class="graph-svg">${parts.join("")}</svg>`;
}
