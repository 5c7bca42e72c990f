// The page: one websocket to imago, the board, and the panels for playing, records and
// analysis. The server holds the game; this page only shows what it is told and sends what
// the person does.

import { BoardView, graphSvg, pointAt, pointName } from "./board.js";
import { layoutTree, treeSvg } from "./tree.js";

const $ = (id) => document.getElementById(id);
const SESSION_KEY = "imago-session";

const page = {
  ws: null,
  info: null,
  state: null,
  tree: null, // {rows, byId, children}
  treeVersion: -1,
  analysis: null,
  hint: null,
  hover: null,
  clockAt: 0,
  retry: 0,
  pending: null, // a click waiting for its move to be drawn: {point, t0}
  opening: null, // a new board's opening game: null, "wanted", "sent", "done"
  playOn: null, // the counted position where the person chose to play on
  reviewMoves: [],
  grades: new Map(), // node id -> {grade, loss, unit} from the last whole-game review
  gradesVersion: 0,
  listKey: null, // what the move list was drawn from: tree version, grades, session
  listSpans: new Map(), // node id -> its span in the move list
  listLine: null,
  listCurrent: null,
};
window.imagoTimings = []; // milliseconds from a click on the board to the move drawn
window.imagoAnalysisTimes = []; // analysis updates: [arrival (performance.now()), new figures?]
window.imagoStates = 0; // states drawn (tests wait on it)
window.imagoBytesReceived = 0; // characters of server messages (tests weigh the traffic)
window.imagoNotices = []; // every notice and error shown, in order

const board = new BoardView($("board"));

// -- the connection ------------------------------------------------------------------------
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const token = new URLSearchParams(location.search).get("token") || "";
  const ws = new WebSocket(`${scheme}://${location.host}/ws?token=${encodeURIComponent(token)}`);
  page.ws = ws;
  setConnection("connecting…", "");
  ws.onopen = () => {
    page.retry = 0;
    ws.send(JSON.stringify({ type: "hello", session: sessionStorage.getItem(SESSION_KEY) }));
  };
  ws.onmessage = (event) => {
    window.imagoBytesReceived += event.data.length;
    receive(JSON.parse(event.data));
  };
  ws.onclose = () => {
    setConnection("disconnected: retrying…", "bad");
    const delay = Math.min(5000, 300 * 2 ** page.retry++);
    setTimeout(connect, delay);
  };
}

function setConnection(text, cls) {
  const el = $("connection");
  el.textContent = text;
  el.className = `connection ${cls}`;
}

function send(message) {
  if (!page.ws || page.ws.readyState !== WebSocket.OPEN) {
    toast("not connected to imago", "error");
    return;
  }
  page.ws.send(JSON.stringify(message));
}

const handlers = {
  welcome(m) {
    sessionStorage.setItem(SESSION_KEY, m.session);
    setConnection("connected", "ok");
    if (m.fresh && page.opening === null) {
      page.opening = "wanted";
      openingGame();
    } else if (page.opening === null) {
      page.opening = "done";
      window.imagoReady = true;
    }
  },
  state(m) {
    const t0 = page.pending;
    const previousNode = page.state ? page.state.node : null;
    if (m.line === null) m.line = page.state ? page.state.line : [];
    page.state = m;
    page.clockAt = performance.now();
    if (m.tree) setTree(m.tree, m.tree_version);
    else if (m.tree_diff && !applyTreeDiff(m.tree_diff, m.tree_version)) return;
    if (m.node !== previousNode) {
      page.hint = null;
      if (!page.analysis || page.analysis.node !== m.node) page.analysis = null;
    }
    render();
    window.imagoStates = (window.imagoStates || 0) + 1;
    if (page.opening === "sent" && window.imagoStates > page.openingAfter) {
      page.opening = "done"; // the opening game's own state (the hello's came first)
      window.imagoReady = true;
    }
    if (t0 && sameMoveDrawn(m, t0)) {
      window.imagoTimings.push(performance.now() - t0.t0);
      page.pending = null;
    }
  },
  analysis(m) {
    window.imagoAnalysisTimes.push([performance.now(), m.fresh]);
    if (!page.state || m.node !== page.state.node) return;
    page.analysis = m;
    renderAnalysis();
    drawBoard();
    updateGraph(m.graph);
  },
  hint(m) {
    page.hint = m;
    toast(`hint: ${m.move}${m.winrate != null ? ` (${pct(m.winrate)})` : ""}${m.value != null && m.winrate == null ? ` (${signed(m.value)})` : ""}`);
    drawBoard();
  },
  notice(m) {
    toast(m.message, m.level);
  },
  error(m) {
    page.pending = null;
    if (page.opening === "sent" && m.request === "new_game") {
      page.opening = "done"; // the form's engine could not start: the board stays as it was
      window.imagoReady = true;
    }
    toast(m.message, "error");
  },
  library(m) {
    showLibrary(m);
  },
  sgf(m) {
    const blob = new Blob([m.text], { type: "application/x-go-sgf" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = m.name;
    document.body.appendChild(link);
    link.click();
    setTimeout(() => {
      URL.revokeObjectURL(link.href);
      link.remove();
    }, 1000);
  },
  review(m) {
    showReview(m);
  },
};

// A new board starts as its form says (the strongest engine as White), so that what the page
// shows first is the game the form offers; a reloaded page keeps its game.
function openingGame() {
  if (page.opening !== "wanted" || !page.info) return;
  page.opening = "sent";
  page.openingAfter = (window.imagoStates || 0) + (page.state ? 0 : 1);
  send(newGameMessage());
}

function receive(message) {
  const handler = handlers[message.type];
  if (handler) handler(message);
}
window.imagoReceive = receive; // tests replay server messages through it

function sameMoveDrawn(state, pending) {
  const last = state.position.last;
  return last && last[0] === pending.point[0] && last[1] === pending.point[1];
}

// -- the tree ---------------------------------------------------------------------------------
function setTree(rows, version) {
  const byId = new Map();
  const children = new Map();
  for (const [id, parent, label, color, number, flags] of rows) {
    byId.set(id, { id, parent, label, color, number, flags });
    if (parent !== null) {
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(id);
    }
  }
  page.tree = { root: rows.length ? rows[0][0] : null, byId, children };
  page.treeVersion = version;
  window.imagoTreeRows = byId.size;
}

// What changed since the tree this page holds (see treesync.py); false (and the whole state
// asked for again) when the page holds another version than the diff's base.
function applyTreeDiff(diff, version) {
  const tree = page.tree;
  if (!tree || page.treeVersion !== diff.base) {
    send({ type: "state" });
    return false;
  }
  for (const id of diff.remove) {
    tree.byId.delete(id);
    tree.children.delete(id);
  }
  for (const [id, parent, label, color, number, flags] of diff.rows) {
    tree.byId.set(id, { id, parent, label, color, number, flags });
    if (parent === null) tree.root = id;
  }
  for (const [parent, kids] of Object.entries(diff.order)) {
    if (kids.length) tree.children.set(Number(parent), kids);
    else tree.children.delete(Number(parent));
  }
  page.treeVersion = version;
  window.imagoTreeRows = tree.byId.size;
  window.imagoTreeDiffs = (window.imagoTreeDiffs || 0) + 1;
  return true;
}

// -- drawing ------------------------------------------------------------------------------------
function render() {
  const s = page.state;
  if (!s) return;
  document.body.dataset.game = s.game;
  document.body.dataset.mode = s.mode;
  drawBoard();
  renderPlayers();
  renderStatus();
  renderMoveList();
  renderPlayMoves();
  renderTreeGraph();
  renderGraph();
  renderCount();
  renderAnalysis();
  $("move-number").textContent = String(s.position.move_number);
  const comment = $("comment");
  if (document.activeElement !== comment) comment.value = s.comment || "";
  $("btn-undo").disabled = !s.can_undo;
  $("btn-resign").disabled = s.mode !== "play" || !!s.ending || s.position.over;
  const finished = s.position.over || !!s.ending;
  $("btn-pass").disabled = finished || (s.game === "othello" && !s.position.must_pass);
  $("btn-hint").disabled = finished;
  $("btn-analyze").textContent = s.analysis.on ? "Stop analysis" : "Analyse";
  $("btn-analyze").classList.toggle("primary", !s.analysis.on);
  if (!$("an-engine").value && document.activeElement !== $("an-engine")) $("an-engine").placeholder = s.analysis.engine;
}

function boardModel() {
  const s = page.state;
  const p = s.position;
  const model = {
    game: s.game,
    size: s.size,
    board: p.board,
    last: p.last,
    legal: p.legal,
    showLegal: s.game === "othello" && !p.over,
    ko: p.ko,
    toPlay: p.to_play,
    dead: s.counting ? s.counting.dead : [],
    territory: s.counting ? s.counting.territory : null,
    heat: heatOf(page.analysis),
    pv: [],
    hint: page.hint && page.hint.point ? page.hint.point : null,
    ghost: null,
  };
  return model;
}

function heatOf(a) {
  if (!a || !a.candidates) return [];
  const cands = a.candidates.filter((c) => c.point);
  if (a.kind === "scores") {
    const valued = cands.filter((c) => c.value !== null);
    return valued.map((c, i) => ({
      point: c.point,
      label: signed(c.value),
      sub: c.exact ? "exact" : `d${c.depth}`,
      strength: valued.length > 1 ? 1 - i / (valued.length - 1) : 1,
      best: i === 0,
      exact: c.exact,
      fill: i === 0 ? "#1e8449" : c.value >= 0 ? "#2563eb" : "#b03a2e",
    }));
  }
  const most = Math.max(1, ...cands.map((c) => c.visits || 0));
  return cands.slice(0, 12).map((c, i) => ({
    point: c.point,
    label: c.winrate != null ? (c.winrate * 100).toFixed(0) : c.value != null ? signed(c.value) : "?",
    sub: c.visits ? compact(c.visits) : "",
    strength: c.visits ? c.visits / most : 0.5,
    best: i === 0,
    fill: i === 0 ? "#1e8449" : "#2563eb",
  }));
}

function drawBoard() {
  if (!page.state) return;
  if (page.hover && page.hover.ghost && (page.state.ending || page.state.position.over)) page.hover = null;
  const model = boardModel();
  board.draw(model);
  applyHover();
}

function applyHover() {
  const h = page.hover;
  if (!h || !page.state) {
    board.drawOverlay({ ghost: null, pv: [] });
    return;
  }
  if (h.pv) {
    board.drawOverlay({ ghost: null, pv: h.pv });
    return;
  }
  board.drawOverlay({ ghost: h.ghost || null, pv: [] });
}

function renderPlayers() {
  const s = page.state;
  for (const color of ["B", "W"]) {
    const el = $(`player-${color}`);
    const seat = s.seats[color];
    const recorded = s.info[color === "B" ? "PB" : "PW"];
    const name = s.mode === "review" && recorded ? recorded : seat.spec;
    el.querySelector(".name").textContent = name;
    const counts = s.position.counts[color];
    el.querySelector(".count").textContent = s.game === "go" ? `captures ${counts}` : `${counts} discs`;
    el.classList.toggle("to-play", !s.position.over && s.position.to_play === color);
    el.classList.toggle("thinking", s.thinking === color);
  }
  renderClocks();
}

function renderClocks() {
  const s = page.state;
  for (const color of ["B", "W"]) {
    const el = $(`player-${color}`).querySelector(".clock");
    if (!s || !s.clocks) {
      el.textContent = "";
      continue;
    }
    const side = s.clocks[color];
    let left = side.remaining;
    if (side.running) left -= (performance.now() - page.clockAt) / 1000;
    el.textContent = clockText(Math.max(0, left)) + (side.stones ? ` (${side.stones})` : "");
    el.classList.toggle("low", left < 10);
  }
}

function clockText(seconds) {
  const m = Math.floor(seconds / 60);
  const sec = Math.floor(seconds % 60);
  return `${m}:${String(sec).padStart(2, "0")}`;
}

function colorName(letter) {
  return letter === "B" ? "Black" : "White";
}

function renderStatus() {
  const s = page.state;
  const p = s.position;
  const parts = [];
  const result = s.ending ? s.ending.result : s.info.RE;
  if (p.over || s.ending) {
    parts.push("Game over");
  } else {
    parts.push(`${colorName(p.to_play)} to play`);
  }
  parts.push(`move ${p.move_number}`);
  if (s.game === "go") {
    parts.push(`captures B ${p.counts.B} W ${p.counts.W}`);
    if (s.komi !== null) parts.push(`komi ${s.komi}`);
  } else {
    parts.push(`discs B ${p.counts.B} W ${p.counts.W}`);
  }
  if (p.last && s.game) parts.push(`last ${pointName(s.game, s.size, p.last)}`);
  $("status").textContent = parts.join(" · ");
  const banner = $("banner");
  let text = "";
  let over = false;
  if (s.ending) {
    text = `Game over: ${s.ending.result} (${s.ending.reason})`;
    over = true;
  } else if (s.counting) {
    const o = s.counting.outcome;
    text = (s.counting.unsettled || []).length
      ? `Both passed, but the position is unsettled: play on or mark dead stones (as it stands ${o.result}).`
      : `Both passed. Count: ${o.result}` + (o.black !== null ? ` (Black ${o.black}, White ${o.white})` : "");
  } else if (p.over && s.game === "othello") {
    text = `Game over: Black ${p.counts.B}, White ${p.counts.W}` + (result ? ` (${result})` : "");
    over = true;
  } else if (p.passed && s.position.last_color) {
    text = `${colorName(s.position.last_color)} passed.`;
  } else if (p.implicit_pass) {
    text = `${colorName(p.last_color === "B" ? "W" : "B")} had no legal move and passed.`;
  } else if (p.must_pass) {
    text = `${colorName(p.to_play)} has no legal move and must pass.`;
  }
  banner.textContent = text;
  banner.classList.toggle("hidden", !text);
  banner.classList.toggle("over", over);
}

function renderCount() {
  const s = page.state;
  const box = $("count-box");
  if (!s.counting) {
    box.classList.add("hidden");
    return;
  }
  box.classList.remove("hidden");
  const o = s.counting.outcome;
  $("count-result").textContent =
    `${o.result}: Black ${o.black}, White ${o.white} (${s.counting.scoring} scoring, ` +
    `${s.counting.dead.length} dead stones)`;
  $("btn-accept").disabled = s.counting.accepted || s.mode !== "play";
  $("btn-play-on").disabled = s.counting.accepted || s.mode !== "play";
  const unsettled = s.counting.unsettled || [];
  const warn = $("count-unsettled");
  warn.textContent = unsettled.length
    ? `The position is unsettled: ${unsettled.length} stones could not be judged and are counted as they stand. ` +
      "Play on, or mark dead groups yourself before accepting."
    : "";
  warn.classList.toggle("hidden", !unsettled.length);
}

function renderMoveList() {
  const s = page.state;
  const tree = page.tree;
  if (!tree) return;
  const key = `${page.treeVersion}/${page.gradesVersion}/${s.session}`;
  if (page.listKey === key) {
    markMoveList();
    return;
  }
  const current = s.node;
  const line = new Set(s.line);
  const out = [];
  const root = tree.root;
  const kids = (id) => tree.children.get(id) || [];

  const span = (node, showNumber) => {
    const cls = ["mv"];
    if (node.id === current) cls.push("current");
    if (node.flags.includes("c")) cls.push("has-comment");
    if (line.has(node.id)) cls.push("on-line");
    const graded = page.grades.get(node.id);
    if (graded && graded.grade) cls.push(`grade-${graded.grade}`);
    const number = showNumber || node.color === "B" ? `<span class="num">${node.number}.</span>` : "";
    const title = graded ? ` title="${graded.unit === "win rate" ? `${(graded.loss * 100).toFixed(1)} win-rate points` : `${graded.loss} discs`} lost"` : "";
    return `<span class="${cls.join(" ")}" data-node="${node.id}"${title}>${number}${escapeHtml(node.label)}</span> `;
  };

  // Iterative (an explicit stack, never recursion): a 10,000-deep variation must not
  // overflow the call stack (issue 43 item 5).
  const walk = (startId) => {
    const stack = [{ id: startId, depth: 0, first: true }];
    let guard = 0;
    while (stack.length) {
      const task = stack.pop();
      if (task.text !== undefined) {
        out.push(task.text);
        continue;
      }
      let id = task.id;
      let first = task.first;
      const depth = task.depth;
      while (id !== undefined && guard++ < 1000000) {
        const node = tree.byId.get(id);
        out.push(span(node, first));
        first = false;
        const parent = node.parent;
        const siblings = parent === null ? [id] : kids(parent);
        const next = kids(id)[0];
        if (siblings[0] === id && siblings.length > 1) {
          if (next !== undefined) stack.push({ id: next, depth, first: true });
          for (const alt of siblings.slice(1).reverse()) {
            stack.push({ text: "</span>" });
            stack.push({ id: alt, depth: depth + 1, first: true });
            stack.push({ text: `<span class="var${depth > 3 ? "" : " var-block"}">` });
          }
          break;
        }
        id = next;
      }
    }
  };
  if (kids(root).length) {
    walk(kids(root)[0]);
  } else {
    out.push('<span class="muted">no moves yet</span>');
  }
  const list = $("move-list");
  list.innerHTML = out.join("");
  page.listKey = key;
  page.listSpans = new Map();
  for (const el of list.querySelectorAll(".mv")) page.listSpans.set(Number(el.dataset.node), el);
  page.listLine = s.line;
  page.listCurrent = current;
  scrollMoveList();
}

// The same tree as drawn: only the current move and the line through it change (a keypress
// on a 20,000-node tree must not rebuild 20,000 spans).
function markMoveList() {
  const s = page.state;
  const spans = page.listSpans;
  if (page.listLine !== s.line) {
    for (const id of page.listLine || []) spans.get(id)?.classList.remove("on-line");
    for (const id of s.line) spans.get(id)?.classList.add("on-line");
    page.listLine = s.line;
  }
  if (page.listCurrent !== s.node) {
    spans.get(page.listCurrent)?.classList.remove("current");
    spans.get(s.node)?.classList.add("current");
    page.listCurrent = s.node;
  }
  scrollMoveList();
}

function scrollMoveList() {
  const list = $("move-list");
  const here = page.listSpans.get(page.listCurrent);
  if (here) {
    // Scroll the list itself (never the page) so that the current move is in view.
    const top = here.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - here.offsetHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }
}

// The graph of the tree (tree.js): laid out once per tree version, drawn around the current node.
function renderTreeGraph() {
  const s = page.state;
  if (!page.tree) return;
  const key = `${page.treeVersion}/${s.session}`;
  if (page.treeLayoutKey !== key) {
    page.treeLayout = layoutTree(page.tree);
    page.treeLayoutKey = key;
  }
  const box = $("tree-graph");
  box.innerHTML = page.tree.byId.size > 1 ? treeSvg(page.tree, page.treeLayout, s.node, new Set(s.line)) : "";
  const here = box.querySelector(".node.current");
  if (here) {
    const x = Number(here.getAttribute("cx"));
    if (x < box.scrollLeft || x > box.scrollLeft + box.clientWidth) box.scrollLeft = Math.max(0, x - box.clientWidth / 2);
  }
}

// The Play tab's list: the moves of the line through the current position, numbered.
function renderPlayMoves() {
  const s = page.state;
  const tree = page.tree;
  const list = $("play-moves");
  if (!tree) return;
  const key = `${page.treeVersion}/${s.session}`;
  if (page.playLine !== s.line || page.playKey !== key) {
    const out = [];
    for (const id of s.line) {
      const node = tree.byId.get(id);
      if (!node || node.parent === null) continue;
      const cls = node.id === s.node ? "mv current" : "mv";
      const number = node.number && (node.color === "B" || out.length === 0) ? `<span class="num">${node.number}.</span>` : "";
      out.push(`<span class="${cls}" data-node="${node.id}">${number}${escapeHtml(node.label)}</span> `);
    }
    list.innerHTML = out.length ? out.join("") : '<span class="muted">no moves yet</span>';
    page.playLine = s.line;
    page.playKey = key;
  } else {
    list.querySelector(".mv.current")?.classList.remove("current");
    list.querySelector(`[data-node="${s.node}"]`)?.classList.add("current");
  }
  const here = list.querySelector(".mv.current");
  if (here) {
    const top = here.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - here.offsetHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }
}

// The graph follows the analysis as it runs: the current position's value, from each update.
function updateGraph(point) {
  const s = page.state;
  if (!point || point.value === null || point.value === undefined) return;
  const index = s.line.indexOf(s.node);
  if (index < 0) return;
  const g = s.graph;
  if (!g.values || g.values.length !== s.line.length || (g.unit && g.unit !== point.unit)) {
    g.values = s.line.map(() => null);
  }
  g.unit = point.unit;
  g.values[index] = point.value;
  renderGraph();
}

function renderGraph() {
  const s = page.state;
  const g = s.graph;
  const index = s.line.indexOf(s.node);
  const svg = g.values && g.values.length ? graphSvg(g.values, g.unit, index) : "";
  $("graph").innerHTML = svg;
  document.body.classList.toggle("has-graph", !!svg);
}

function renderAnalysis() {
  const s = page.state;
  const a = page.analysis;
  const body = $("candidates");
  const info = $("analysis-info");
  if (!a) {
    body.innerHTML = "";
    info.textContent = s && s.analysis.on ? "thinking…" : s && s.analysis.reviewing ? "reviewing…" : "";
    return;
  }
  const scores = a.kind === "scores";
  $("cand-col").textContent = scores ? "discs" : "win rate";
  $("count-col").textContent = scores ? "depth" : "visits";
  const who = colorName(a.to_play);
  if (scores) {
    const phase = a.exact ? "exact (endgame solver)" : `alpha-beta depth ${a.depth}`;
    info.textContent = `${a.engine}: ${phase}, for ${who} · ${a.elapsed}s${a.running ? "" : " · done"}`;
  } else {
    const visits = (a.candidates || []).reduce((n, c) => n + (c.visits || 0), 0);
    info.textContent = `${a.engine}: ${compact(visits)} visits, for ${who} · ${a.elapsed}s${a.running ? "" : " · done"}`;
  }
  body.innerHTML = (a.candidates || [])
    .slice(0, 20)
    .map((c, i) => {
      const figure = scores
        ? `<span class="${c.exact ? "exact" : ""}">${c.value === null ? "…" : signed(c.value)}${c.exact ? " ✓" : ""}</span>`
        : c.winrate != null
          ? pct(c.winrate)
          : c.value != null
            ? signed(c.value)
            : "";
      const count = scores ? (c.exact ? "exact" : `d${c.depth}`) : compact(c.visits || 0);
      return `<tr data-index="${i}"><td>${escapeHtml(c.move)}</td><td>${figure}</td><td>${count}</td><td class="line">${escapeHtml((c.pv || []).slice(0, 8).join(" "))}</td></tr>`;
    })
    .join("");
}

// -- the library of a multi-game file -----------------------------------------------------------
function showLibrary(m) {
  page.library = m.games;
  $("library").classList.remove("hidden");
  $("library-title").textContent = `${m.name}: ${m.games.length} games`;
  fillLibrary("");
  selectTab("record");
}

function fillLibrary(filter) {
  const f = filter.trim().toLowerCase();
  const rows = [];
  for (const g of page.library || []) {
    const text = `${g.black} ${g.white} ${g.event} ${g.date} ${g.result}`.toLowerCase();
    if (f && !text.includes(f)) continue;
    rows.push(
      `<tr data-index="${g.index}"><td>${g.index + 1}</td><td>${escapeHtml(g.black)}</td><td>${escapeHtml(g.white)}</td><td>${escapeHtml(g.result)}</td><td>${escapeHtml(g.event)} ${escapeHtml(g.date)}</td></tr>`,
    );
    if (rows.length >= 500) break;
  }
  $("library-body").innerHTML = rows.join("");
}

// -- whole-game review -------------------------------------------------------------------------
function showReview(m) {
  window.imagoLastReview = m;
  const bar = $("review-progress");
  bar.classList.toggle("hidden", m.done);
  bar.max = m.positions;
  bar.value = m.reviewed;
  if (!m.moves) {
    $("review-summary").textContent = `reviewing: ${m.reviewed} of ${m.positions} positions`;
    return;
  }
  page.reviewMoves = m.mistakes;
  page.gradesVersion = (page.gradesVersion || 0) + 1;
  page.grades = new Map(m.moves.filter((x) => x.node !== null).map((x) => [x.node, { grade: x.grade, loss: x.loss, unit: m.unit }]));
  renderMoveList();
  const unit = m.unit;
  const avg = (c) => (unit === "win rate" ? `${(m.average[c] * 100).toFixed(1)} win-rate points` : `${m.average[c].toFixed(1)} discs`);
  $("review-summary").textContent = `${m.engine}: average loss Black ${avg("B")}, White ${avg("W")}`;
  $("mistakes").innerHTML = m.mistakes
    .map(
      (x, i) =>
        `<li data-index="${i}"><span class="grade-${x.grade}">${x.grade}</span> move ${x.number} ${x.color} ${escapeHtml(x.move)}: ` +
        `${unit === "win rate" ? `${(x.loss * 100).toFixed(1)} win-rate points` : `${x.loss} discs`} lost` +
        `${x.better ? `, better ${escapeHtml(x.better)}` : ""}</li>`,
    )
    .join("");
  selectTab("analysis");
}

// -- helpers ------------------------------------------------------------------------------------
function pct(x) {
  return `${(x * 100).toFixed(1)}%`;
}
function signed(x) {
  const v = Math.round(x * 10) / 10;
  return v > 0 ? `+${v}` : String(v);
}
function compact(n) {
  return n >= 10000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}
function escapeHtml(text) {
  return String(text ?? "").replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
}
function toast(text, level = "info") {
  window.imagoNotices.push([level, text]);
  // One pass note at a time: an Othello side that passes again and again replaces it.
  if (level === "pass") for (const old of document.querySelectorAll("#toasts .toast.pass")) old.remove();
  const el = document.createElement("div");
  el.className = `toast ${level}`;
  el.textContent = text;
  $("toasts").appendChild(el);
  setTimeout(() => el.remove(), level === "error" ? 6000 : 3500);
}
function selectTab(name) {
  for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const p of document.querySelectorAll(".tab-panel")) p.classList.toggle("hidden", p.dataset.panel !== name);
}

// -- the person's actions ----------------------------------------------------------------------
function onBoardClick(event) {
  const s = page.state;
  if (!s) return;
  const point = pointAt($("board"), board.model, event.clientX, event.clientY);
  if (!point) return;
  if (s.counting && !s.counting.accepted && page.playOn !== s.node) {
    send({ type: "toggle_dead", point });
    return;
  }
  page.pending = { point, t0: performance.now() };
  send({ type: "play", point });
}

function onBoardMove(event) {
  const s = page.state;
  if (!s || !board.model) return;
  const point = pointAt($("board"), board.model, event.clientX, event.clientY);
  let hover = null;
  if (point) {
    const cand = (page.analysis?.candidates || []).find((c) => c.point && c.point[0] === point[0] && c.point[1] === point[1]);
    if (cand && cand.pv_points && cand.pv_points.length) {
      hover = { pv: pvStones(cand) };
    } else if (s.position.legal[point[0] * s.size + point[1]] === "1" && s.game === "go" && !s.counting && !s.ending) {
      hover = { ghost: point };
    }
  }
  const same = JSON.stringify(hover) === JSON.stringify(page.hover);
  page.hover = hover;
  if (!same) applyHover();
}

function pvStones(cand) {
  let color = page.analysis.to_play;
  const out = [];
  cand.pv_points.slice(0, 20).forEach((point, i) => {
    if (point) out.push({ point, color, n: i + 1 });
    color = color === "B" ? "W" : "B";
  });
  return out;
}

function nav(to, extra = {}) {
  send({ type: "nav", to, ...extra });
}

function onKey(event) {
  const tag = (event.target.tagName || "").toLowerCase();
  if (["input", "textarea", "select"].includes(tag)) return;
  const keys = {
    ArrowLeft: () => nav("back"),
    ArrowRight: () => nav("forward"),
    ArrowUp: () => nav("previous_variation"),
    ArrowDown: () => nav("next_variation"),
    Home: () => nav("start"),
    End: () => nav("end"),
  };
  const action = keys[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

async function readFiles(files) {
  const out = [];
  for (const file of files) {
    const buffer = new Uint8Array(await file.arrayBuffer());
    let binary = "";
    for (let i = 0; i < buffer.length; i += 0x8000) binary += String.fromCharCode(...buffer.subarray(i, i + 0x8000));
    out.push({ name: file.name, data: btoa(binary) });
  }
  return out;
}

function fillNewGameForm() {
  const info = page.info;
  if (!info) return;
  const game = $("ng-game").value;
  const g = info.games[game];
  const size = $("ng-size");
  const current = Number(size.value) || g.default_size;
  size.innerHTML = g.sizes.map((n) => `<option value="${n}">${n}×${n}</option>`).join("");
  size.value = String(g.sizes.includes(current) ? current : g.default_size);
  for (const el of document.querySelectorAll(".go-only")) el.classList.toggle("hidden", game !== "go");
  if (game === "go") {
    $("ng-rules").innerHTML = g.rules.map((r) => `<option value="${r}">${r}</option>`).join("");
    fillHandicap();
  }
  $("agent-list").innerHTML = ["human", ...info.agents.filter((a) => a.games.includes(game)).map((a) => a.name)]
    .map((n) => `<option value="${n}"></option>`)
    .join("");
  fillEngine();
}

// The strongest engine for the chosen board, unless the person typed another.
function fillEngine() {
  const g = page.info.games[$("ng-game").value];
  const white = $("ng-white");
  if (!white.dataset.touched) white.value = (g.engines && g.engines[$("ng-size").value]) || g.engine;
}

function fillHandicap() {
  const max = page.info.games.go.max_handicap[$("ng-size").value] || 0;
  const options = [0];
  for (let i = 2; i <= max; i++) options.push(i);
  $("ng-handicap").innerHTML = options.map((n) => `<option value="${n}">${n || "none"}</option>`).join("");
}

function wire() {
  const svg = $("board");
  svg.addEventListener("click", onBoardClick);
  svg.addEventListener("mousemove", onBoardMove);
  svg.addEventListener("mouseleave", () => {
    page.hover = null;
    applyHover();
  });
  document.addEventListener("keydown", onKey);
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => selectTab(b.dataset.tab));
  $("nav-start").onclick = () => nav("start");
  $("nav-back").onclick = () => nav("back");
  $("nav-forward").onclick = () => nav("forward");
  $("nav-end").onclick = () => nav("end");
  $("nav-prev-var").onclick = () => nav("previous_variation");
  $("nav-next-var").onclick = () => nav("next_variation");
  for (const id of ["move-list", "play-moves", "tree-graph"]) {
    $(id).addEventListener("click", (e) => {
      const el = e.target.closest("[data-node]");
      if (el) nav("node", { node: Number(el.dataset.node) });
    });
  }
  $("btn-play-here").onclick = () => {
    // The strongest engine for the board takes the other side (the server chooses it).
    send({ type: "mode", mode: "play", engine: "" });
    selectTab("play");
  };
  $("graph").addEventListener("click", (e) => {
    const s = page.state;
    if (!s || !s.line.length) return;
    const rect = $("graph").getBoundingClientRect();
    const index = Math.round(((e.clientX - rect.left) / rect.width) * (s.line.length - 1));
    nav("node", { node: s.line[Math.max(0, Math.min(s.line.length - 1, index))] });
  });
  $("ng-game").onchange = () => {
    $("ng-size").value = "";
    fillNewGameForm();
  };
  $("ng-size").onchange = () => {
    if (!page.info) return;
    if ($("ng-game").value === "go") fillHandicap();
    fillEngine();
  };
  $("ng-white").oninput = () => ($("ng-white").dataset.touched = "1");
  $("new-game").onsubmit = (e) => {
    e.preventDefault();
    page.analysis = null;
    send(newGameMessage());
    // On a phone the form is below the board: bring the new game's board into view.
    if ($("board").getBoundingClientRect().top < 0) $("board-area").scrollIntoView({ block: "start" });
  };
  $("btn-pass").onclick = () => send({ type: "pass" });
  $("btn-undo").onclick = () => send({ type: "undo" });
  $("btn-hint").onclick = () => send({ type: "hint" });
  wireRest();
}

// The new game the form describes, as a request.
function newGameMessage() {
  const f = new FormData($("new-game"));
  const game = f.get("game");
  const message = {
    type: "new_game",
    game,
    size: Number(f.get("size")),
    black: f.get("black") || "human",
    white: f.get("white") || "human",
    move_time: Number(f.get("move_time")) || 1,
    clock: f.get("clock") || null,
  };
  if (game === "go") {
    message.rules = f.get("rules");
    message.handicap = Number(f.get("handicap") || 0);
    if (f.get("komi") !== "") message.komi = Number(f.get("komi"));
  }
  return message;
}

function wireRest() {
  const resign = $("btn-resign");
  resign.onclick = () => {
    if (resign.dataset.armed) {
      delete resign.dataset.armed;
      resign.textContent = "Resign";
      send({ type: "resign" });
      return;
    }
    resign.dataset.armed = "1";
    resign.textContent = "Really resign?";
    setTimeout(() => {
      delete resign.dataset.armed;
      resign.textContent = "Resign";
    }, 3000);
  };
  $("btn-accept").onclick = () => send({ type: "accept_count" });
  $("btn-play-on").onclick = () => {
    if (!page.state) return;
    page.playOn = page.state.node; // the next click on this position is a move
    toast("play on: click where to play", "info");
  };
  $("file-input").onchange = async (e) => {
    const files = [...e.target.files];
    if (!files.length) return;
    const total = files.reduce((n, f) => n + f.size, 0);
    if (page.info && total > page.info.limits.upload_bytes) {
      toast(`the files are ${total} bytes; the limit is ${page.info.limits.upload_bytes}`, "error");
      return;
    }
    page.analysis = null;
    send({ type: "load", files: await readFiles(files) });
    e.target.value = "";
  };
  $("btn-paste").onclick = () => {
    const text = $("paste").value;
    if (!text.trim()) return toast("paste an SGF or a transcript first", "warning");
    page.analysis = null;
    send({ type: "load", text });
  };
  $("library-filter").oninput = (e) => fillLibrary(e.target.value);
  $("library-body").addEventListener("click", (e) => {
    const row = e.target.closest("tr[data-index]");
    if (row) send({ type: "open", index: Number(row.dataset.index) });
  });
  $("btn-download").onclick = () => send({ type: "export" });
  $("btn-delete").onclick = () => page.state && send({ type: "delete", node: page.state.node });
  $("btn-promote").onclick = () => page.state && send({ type: "promote", node: page.state.node });
  $("comment").addEventListener("change", () => {
    if (page.state) send({ type: "comment", node: page.state.node, text: $("comment").value });
  });
  $("btn-analyze").onclick = () => {
    const on = !(page.state && page.state.analysis.on);
    const message = { type: "analyze", on };
    const engine = $("an-engine").value.trim();
    if (engine) message.engine = engine;
    if (!on) page.analysis = null;
    send(message);
  };
  $("candidates").addEventListener("mouseover", (e) => {
    const row = e.target.closest("tr[data-index]");
    if (!row || !page.analysis) return;
    const cand = page.analysis.candidates[Number(row.dataset.index)];
    if (cand && cand.pv_points) {
      page.hover = { pv: pvStones(cand) };
      applyHover();
    }
  });
  $("candidates").addEventListener("mouseleave", () => {
    page.hover = null;
    applyHover();
  });
  $("btn-review").onclick = () => {
    const seconds = Number($("rv-seconds").value) || 1;
    const message = { type: "review", seconds };
    const engine = $("an-engine").value.trim();
    if (engine) message.engine = engine;
    $("mistakes").innerHTML = "";
    send(message);
  };
  $("btn-stop").onclick = () => send({ type: "stop" });
  $("mistakes").addEventListener("click", (e) => {
    const li = e.target.closest("li[data-index]");
    if (!li) return;
    const m = page.reviewMoves[Number(li.dataset.index)];
    if (m && m.node !== null) {
      const parent = page.tree && page.tree.byId.get(m.node);
      nav("node", { node: parent && parent.parent !== null ? parent.parent : m.node });
    }
  });
  setInterval(() => page.state && page.state.clocks && renderClocks(), 200);
}

async function start() {
  wire();
  try {
    const token = new URLSearchParams(location.search).get("token") || "";
    const response = await fetch(`/api/info?token=${encodeURIComponent(token)}`);
    page.info = await response.json();
    fillNewGameForm();
    openingGame();
  } catch (error) {
    toast(`cannot read /api/info: ${error}`, "error");
    page.opening = "done";
    window.imagoReady = true;
  }
  connect();
}

start();
