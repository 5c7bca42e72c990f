// The game tree drawn as a graph, as Sabaki draws it: one column per move, the main line on
// the first row, each variation on a row of its own below. Pure functions of the page's tree
// ({root, byId, children}); the layout is made once per tree version, and only a window around
// the current node is drawn, so a 20,000-node tree costs a few hundred circles.

const STEP = 22; // pixels between columns and rows
const HALF_COLUMNS = 24; // columns drawn on each side of the current node
const ROWS = 12; // rows drawn from the current node's (a few above it)

// {at: Map id -> [column, row], rows: number}: columns are depths; a first child keeps its
// parent's row, a later child takes a new row, below every row taken so far (iterative: any
// depth).
export function layoutTree(tree) {
  const at = new Map();
  if (!tree || tree.root === null || tree.root === undefined) return { at, rows: 0 };
  let rows = 1;
  const stack = [[tree.root, 0, 0]];
  while (stack.length) {
    const [id, column, row] = stack.pop();
    at.set(id, [column, row]);
    const kids = tree.children.get(id) || [];
    // The first child is pushed last, so it is walked first (the main line before the rest).
    const rowsOf = kids.map((_, i) => (i === 0 ? row : rows++));
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], column + 1, rowsOf[i]]);
  }
  return { at, rows };
}

// The SVG of the window around ``current``: edges, then one circle a node (data-node ids).
export function treeSvg(tree, layout, current, line) {
  const here = layout.at.get(current);
  if (!here) return "";
  const [c0, r0] = here;
  const left = Math.max(0, c0 - HALF_COLUMNS);
  const right = c0 + HALF_COLUMNS;
  const top = Math.max(0, r0 - 2);
  const bottom = top + ROWS;
  const inside = ([c, r]) => c >= left && c <= right && r >= top && r <= bottom;
  const x = (c) => (c - left) * STEP + STEP / 2;
  const y = (r) => (r - top) * STEP + STEP / 2;
  const edges = [];
  const nodes = [];
  let width = 0;
  let height = 0;
  for (const [id, place] of layout.at) {
    if (!inside(place)) continue;
    const node = tree.byId.get(id);
    if (!node) continue;
    const [c, r] = place;
    width = Math.max(width, x(c) + STEP / 2);
    height = Math.max(height, y(r) + STEP / 2);
    const parent = node.parent === null ? null : layout.at.get(node.parent);
    if (parent) {
      const [pc, pr] = parent;
      // from the parent's row down to this one, then across (a variation's elbow)
      edges.push(`<path d="M${x(pc)} ${y(Math.max(pr, top))} L${x(pc)} ${y(r)} L${x(c)} ${y(r)}" class="edge${line.has(id) ? " on-line" : ""}"/>`);
    }
    const cls = ["node", node.color === "B" ? "black" : node.color === "W" ? "white" : "none"];
    if (id === current) cls.push("current");
    if (node.flags.includes("c")) cls.push("has-comment");
    const label = `${node.number ? `${node.number}. ` : ""}${node.label}`;
    nodes.push(`<circle cx="${x(c)}" cy="${y(r)}" r="7" class="${cls.join(" ")}" data-node="${id}"><title>${escapeText(label)}</title></circle>`);
  }
  return `<svg class="tree-svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${edges.join("")}${nodes.join("")}</svg>`;
}

function escapeText(text) {
  return String(text).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
}
