// strat-tools game viewer, its parts that only compute from a game's rebuilt plies (no page
// state): pieces left per side, the StraDos3 string of a position (an exact port of
// strat_tools.engine.encodings.strados3.strados3_at, tested equal), the pieces' identities and
// histories across plies, and the material graph. viewer.js draws and steps with them.
var StratViewerParts = (function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";

  function side(code) { return code >= 1 && code <= 12 ? 1 : (code >= 13 && code <= 24 ? 2 : 0); }
  function kind(code) { return (code - 1) % 12; }

  // {piece name: count} of side's pieces on board (names as in the tables; none at 0).
  function remaining(board, who, names) {
    var out = {}, counts = [], sq, k, code;
    for (k = 0; k < 12; k++) { counts.push(0); }
    for (sq = 0; sq < 100; sq++) {
      code = board[sq];
      if (side(code) === who) { counts[kind(code)] += 1; }
    }
    for (k = 0; k < 12; k++) { if (counts[k]) { out[names[k]] = counts[k]; } }
    return out;
  }

  // What viewer side `who` has identified of the opponent's pieces on the board, per name,
  // and how many of them it has not identified.
  function identified(board, flags, who, names, known) {
    var out = {}, counts = [], sq, k, code, unknown = 0;
    for (k = 0; k < 12; k++) { counts.push(0); }
    for (sq = 0; sq < 100; sq++) {
      code = board[sq];
      if (side(code) !== 3 - who) { continue; }
      if (flags[sq] & known) { counts[kind(code)] += 1; } else { unknown += 1; }
    }
    for (k = 0; k < 12; k++) { if (counts[k]) { out[names[k]] = counts[k]; } }
    return { known: out, unknown: unknown };
  }

  // The StraDos3 string after `ply` plies: revealed pieces (and, in a side's view, the
  // opponent pieces it identified) in lower case, the opponent's others "?".
  function strados3(board, flags, ply, who, F, letters) {
    var out = "", sq, code, letter, visible, opponent = who === 0 ? 0 : 3 - who;
    for (sq = 0; sq < 100; sq++) {
      code = board[sq];
      letter = letters.charAt(code);
      if (code !== 0 && code !== 25) {
        visible = !!(flags[sq] & F.revealed) || (side(code) === opponent && !!(flags[sq] & F.known));
        if (visible) { letter = letter.toLowerCase(); } else if (side(code) === opponent) { letter = "?"; }
      }
      out += letter;
    }
    return out + " " + (ply % 2 === 0 ? "r" : "b") + " " + ply;
  }

  // Follow every piece through the plies: ids[ply][square] names the piece there (-1 none)
  // and pieces[id] = {code, start, events: [[ply, what, ...]]}; what is "move" (from, to),
  // "battle" (its role: "attacker"/"defender"), "revealed", "known" or "rescued".
  function track(game, cache, F) {
    var ids = [], pieces = [], now = new Int16Array(100), p, sq, id, prev, board, flags, before;
    for (sq = 0; sq < 100; sq++) {
      now[sq] = -1;
      if (side(cache.boards[0][sq])) { now[sq] = pieces.length; pieces.push({ code: cache.boards[0][sq], start: sq, events: [] }); }
    }
    ids.push(now);
    for (p = 1; p <= game.plies; p++) {
      prev = now; now = prev.slice(); board = cache.boards[p]; flags = cache.flags[p]; before = cache.boards[p - 1];
      var move = game.moves[p - 1], from = Math.floor(move / 100), to = move % 100, mover = prev[from];
      var defender = prev[to], battle = game.battles[String(p)];
      now[from] = -1;
      if (mover >= 0) { pieces[mover].events.push([p, "move", from, to]); }
      if (battle) {
        if (mover >= 0) { pieces[mover].events.push([p, "battle", "attacker"]); }
        if (defender >= 0) { pieces[defender].events.push([p, "battle", "defender"]); }
      }
      now[to] = board[to] === 0 ? -1 : (side(board[to]) === side(before[from]) ? mover : defender);
      for (sq = 0; sq < 100; sq++) {
        if (board[sq] === 0) { now[sq] = -1; continue; }
        if (board[sq] !== 25 && before[sq] !== board[sq] && sq !== to) {  // a piece brought back
          now[sq] = pieces.length;
          pieces.push({ code: board[sq], start: sq, events: [[p, "rescued"]] });
        }
        id = now[sq];
        if (id < 0) { continue; }
        var old = cache.flags[p - 1][sq === to ? (id === mover ? from : to) : sq];
        if ((flags[sq] & F.revealed) && !(old & F.revealed)) { pieces[id].events.push([p, "revealed"]); }
        if ((flags[sq] & F.known) && !(old & F.known)) { pieces[id].events.push([p, "known"]); }
      }
      ids.push(now);
    }
    // A piece that lost its battle is gone from the board but keeps its history.
    return { ids: ids, pieces: pieces };
  }

  // Pieces on the board per side at every ply: [[red, blue], ...].
  function material(cache) {
    return cache.boards.map(function (board) {
      var red = 0, blue = 0, sq;
      for (sq = 0; sq < 100; sq++) { if (side(board[sq]) === 1) { red++; } else if (side(board[sq]) === 2) { blue++; } }
      return [red, blue];
    });
  }

  function el(name, attrs) {
    var node = document.createElementNS(NS, name), key;
    for (key in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, key)) { node.setAttribute(key, attrs[key]); } }
    return node;
  }

  // The material graph up to ply `upto` (all of it unless spoilers are off), battles marked
  // along the bottom, the shown ply as a line. Returns the svg; x of a click -> ply via plyAt.
  function graph(series, battles, ply, upto, colours, width) {
    var height = 92, pad = 4, n = series.length - 1, top = 40, svg, i, x, y, path;
    svg = el("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img" });
    svg.appendChild(el("rect", { x: 0, y: 0, width: width, height: height, fill: "#fffdf6", stroke: "#ccc" }));
    function px(p) { return pad + (n > 0 ? p / n : 0) * (width - 2 * pad); }
    function py(v) { return pad + (1 - v / top) * (height - 20 - pad); }
    [0, 1].forEach(function (s) {
      path = "";
      for (i = 0; i <= Math.min(upto, n); i++) { path += (i ? " L" : "M") + px(i).toFixed(1) + " " + py(series[i][s]).toFixed(1); }
      svg.appendChild(el("path", { d: path, fill: "none", stroke: colours[s], "stroke-width": 2, "class": s ? "blue" : "red" }));
    });
    Object.keys(battles).forEach(function (key) {
      var p = parseInt(key, 10);
      if (p > upto) { return; }
      x = px(p);
      svg.appendChild(el("line", { x1: x, x2: x, y1: height - 14, y2: height - 4, stroke: colours[2], "stroke-width": 1, "class": "battle-mark" }));
    });
    x = px(ply); y = height;
    svg.appendChild(el("line", { x1: x, x2: x, y1: 0, y2: y, stroke: "#222", "stroke-width": 1, "stroke-dasharray": "3 2", "class": "at" }));
    return svg;
  }

  // Red's chance of winning (thousandths per ply) up to ply `upto`, the 50% line, the shown
  // ply as a line; the area above the curve is blue's chance.
  function chanceGraph(series, ply, upto, colours, width) {
    var height = 64, pad = 4, n = series.length - 1, svg, i, x, path = "";
    svg = el("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img" });
    svg.appendChild(el("rect", { x: 0, y: 0, width: width, height: height, fill: "#fffdf6", stroke: "#ccc" }));
    function px(p) { return pad + (n > 0 ? p / n : 0) * (width - 2 * pad); }
    function py(v) { return pad + (1 - v / 1000) * (height - 2 * pad); }
    svg.appendChild(el("line", { x1: pad, x2: width - pad, y1: py(500), y2: py(500), stroke: "#bbb", "stroke-dasharray": "2 2" }));
    for (i = 0; i <= Math.min(upto, n); i++) { path += (i ? " L" : "M") + px(i).toFixed(1) + " " + py(series[i]).toFixed(1); }
    svg.appendChild(el("path", { d: path, fill: "none", stroke: colours[0], "stroke-width": 2, "class": "chance" }));
    var label = el("text", { x: pad + 2, y: 12, "font-size": 10, fill: "#555" });
    label.textContent = "win chance: red's below the line, blue's above (50% dashed)";
    svg.appendChild(label);
    x = px(ply);
    svg.appendChild(el("line", { x1: x, x2: x, y1: 0, y2: height, stroke: "#222", "stroke-width": 1, "stroke-dasharray": "3 2", "class": "at" }));
    return svg;
  }

  function plyAt(offsetX, width, plies) {
    var pad = 4;
    return Math.max(0, Math.min(plies, Math.round((offsetX - pad) / (width - 2 * pad) * plies)));
  }

  return { remaining: remaining, identified: identified, strados3: strados3, track: track,
    material: material, graph: graph, chanceGraph: chanceGraph, plyAt: plyAt, side: side, kind: kind };
}());
