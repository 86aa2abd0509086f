// strat-tools game viewer. Rebuilds every ply from the per-ply changes the page carries
// (board codes and knowledge flags computed by strat_tools.engine.information.knowledge); knows no rules.
// Names from game files are only ever inserted as text.
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("viewer-config").textContent);
  var games = JSON.parse(document.getElementById("viewer-games").textContent);
  var S = config.style, F = config.flags, LETTERS = config.letters;
  var COLS = "ABCDEFGHIK", NS = "http://www.w3.org/2000/svg";
  var KINDS = config.kinds, P = StratViewerParts, M = StratViewerModels;
  var VIEWS = config.views;
  var state = { missing: null, game: 0, ply: 0, view: "all", numbering: config.numbering, timer: null, cache: null,
    flip: false, spoilers: config.spoilers, info: -1, arrows: true, guesses: false, heat: false };
  var $ = function (id) { return document.getElementById(id); };
  var boardEl = $("board");

  function side(code) { return code >= 1 && code <= 12 ? 1 : (code >= 13 && code <= 24 ? 2 : 0); }
  function kind(code) { return (code - 1) % 12; }
  function label(code) { return config.labels[state.numbering][kind(code)]; }
  function sideName(s) { return s === 1 ? "red" : "blue"; }
  function sqName(sq) { return COLS.charAt(sq % 10) + (Math.floor(sq / 10) + 1); }
  function viewSide() { return state.view === "red" ? 1 : (state.view === "blue" ? 2 : 0); }

  function build(game) {
    var boards = [], flags = [], captured = [], unseen = [], lost = [];
    var b = new Uint8Array(100), f = new Uint8Array(100);
    var c = new Uint8Array(24), u = new Uint8Array(24), l = new Uint8Array(24), p, i, d;
    for (i = 0; i < 100 && game.field; i++) { b[i] = LETTERS.indexOf(game.field.charAt(i)); }
    if (!game.field) { config.lakes.forEach(function (sq) { b[sq] = 25; }); }
    if (game.unseen0) { u = Uint8Array.from(game.unseen0); }
    boards.push(b); flags.push(f); captured.push(c); unseen.push(u); lost.push(l);
    for (p = 0; p < game.plies; p++) {
      b = b.slice(); f = f.slice(); c = c.slice(); u = u.slice(); l = l.slice();
      d = game.squares[p];
      for (i = 0; i < d.length; i += 3) { b[d[i]] = d[i + 1]; f[d[i]] = d[i + 2]; }
      d = game.captured[p];
      for (i = 0; i < d.length; i += 2) { c[d[i]] = d[i + 1]; }
      d = game.unseen[p];
      for (i = 0; i < d.length; i += 2) { u[d[i]] = d[i + 1]; }
      d = game.lostUnseen ? game.lostUnseen[p] : [];
      for (i = 0; i < d.length; i += 2) { l[d[i]] = d[i + 1]; }
      boards.push(b); flags.push(f); captured.push(c); unseen.push(u); lost.push(l);
    }
    var cache = { boards: boards, flags: flags, captured: captured, unseen: unseen, lostUnseen: lost };
    if (game.field) { cache.pieces = P.track(game, cache, F); cache.material = P.material(cache); }
    if (game.beliefs) {
      cache.beliefs = { red: M.rows(game.beliefs.red, 3), blue: M.rows(game.beliefs.blue, 3), right: M.rows(game.beliefs.right, 1) };
    }
    return cache;
  }

  function flipped() { return (viewSide() === 2) !== state.flip; }
  // Without spoilers the page shows nothing past the shown ply until the last one.
  function shownUpTo() { return state.spoilers || state.ply === games[state.game].plies ? games[state.game].plies : state.ply; }

  function el(name, attrs, text) {
    var node = document.createElementNS(NS, name), key;
    for (key in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, key)) { node.setAttribute(key, attrs[key]); } }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function xy(sq, flip) {
    var row = Math.floor(sq / 10), col = sq % 10;
    if (flip) { row = 9 - row; col = 9 - col; }
    return [S.margin + col * S.cell, (9 - row) * S.cell];
  }

  function hiddenFor(code, bits, who) {
    return who !== 0 && side(code) === 3 - who && !(bits & F.known);
  }

  function battleText(game, ply, who) {
    var b = game.battles[String(ply)];
    if (!b) { return ""; }
    var mover = b[0], defender = b[1], outcome = b[2], shown = b[3];
    function rank(code, bit) {
      if (who === 0 || side(code) === who || (shown & bit)) { return label(code) + " (" + KINDS[kind(code)] + ")"; }
      return "? (not shown)";
    }
    var a = sideName(side(mover)) + " " + rank(mover, 1), d = sideName(side(defender)) + " " + rank(defender, 2);
    var verdict = ["attacks", "takes", "attacks and loses to", "attacks: both removed,", "captures the flag:"][outcome] || "attacks";
    if (outcome === 4) { return a + " captures " + sideName(side(defender)) + "'s flag"; }
    if (outcome === 3) { return a + " and " + d + " meet: both removed"; }
    if (outcome === 2) { return a + " attacks " + d + " and loses"; }
    return a + " " + verdict + " " + d;
  }

  function draw() {
    var game = games[state.game], cache = state.cache, ply = state.ply, who = viewSide();
    var flip = flipped(), size = S.margin + 10 * S.cell + 2, height = 10 * S.cell + S.margin;
    var svg = el("svg", { width: size, height: height, viewBox: "0 0 " + size + " " + height,
      "font-family": "sans-serif", role: "img" });
    var board = cache.boards[ply], flags = cache.flags[ply], sq, i, pos;
    svg.appendChild(el("rect", { x: S.margin, y: 0, width: 10 * S.cell, height: 10 * S.cell, fill: S.board, stroke: S.grid }));
    for (i = 0; i < 10; i++) {
      svg.appendChild(el("text", { x: S.margin + i * S.cell + S.cell / 2, y: 10 * S.cell + 14, fill: S.coord,
        "font-size": 12, "font-weight": "bold", "text-anchor": "middle", "dominant-baseline": "central" },
        flip ? COLS.charAt(9 - i) : COLS.charAt(i)));
      svg.appendChild(el("text", { x: S.margin / 2, y: i * S.cell + S.cell / 2, fill: S.coord, "font-size": 12,
        "font-weight": "bold", "text-anchor": "middle", "dominant-baseline": "central" }, String(flip ? i + 1 : 10 - i)));
    }
    for (sq = 0; sq < 100; sq++) {
      pos = xy(sq, flip);
      svg.appendChild(el("rect", { x: pos[0], y: pos[1], width: S.cell, height: S.cell,
        fill: board[sq] === 25 ? S.lake : "none", stroke: S.grid, "stroke-width": 1 }));
    }
    var battle = ply > 0 && game.battles[String(ply)];
    if (ply > 0) {
      var move = game.moves[ply - 1], ends = [Math.floor(move / 100), move % 100];
      for (i = 0; i < 2; i++) {
        pos = xy(ends[i], flip);
        svg.appendChild(el("rect", { x: pos[0] + 1, y: pos[1] + 1, width: S.cell - 2, height: S.cell - 2, rx: 3,
          fill: "none", stroke: battle && i === 1 ? S.battle : S.last, "stroke-width": 3 }));
      }
      var a = xy(ends[0], flip), z = xy(ends[1], flip), h = S.cell / 2;
      var corner = (Math.floor(ends[0] / 10) !== Math.floor(ends[1] / 10) && ends[0] % 10 !== ends[1] % 10) ?
        xy(Math.floor(ends[0] / 10) * 10 + ends[1] % 10, flip) : null;  // a lightning captain's turn
      var path = "M" + (a[0] + h) + " " + (a[1] + h) + (corner ? " L" + (corner[0] + h) + " " + (corner[1] + h) : "") +
        " L" + (z[0] + h) + " " + (z[1] + h);
      svg.appendChild(el("path", { d: path, fill: "none", stroke: S.last, "stroke-width": 4, "stroke-opacity": 0.55,
        "stroke-linecap": "round", "stroke-linejoin": "round" }));
      var rescued = game.rescues && game.rescues[String(ply)];
      if (rescued !== undefined) {
        pos = xy(rescued, flip);
        svg.appendChild(el("rect", { x: pos[0] + 1, y: pos[1] + 1, width: S.cell - 2, height: S.cell - 2, rx: 3,
          fill: "none", stroke: S.rescue, "stroke-width": 3 }));
      }
    }
    for (sq = 0; sq < 100; sq++) {
      var code = board[sq];
      if (code === 0 || code === 25) { continue; }
      var colour = sideName(side(code)), hidden = hiddenFor(code, flags[sq], who);
      pos = xy(sq, flip);
      svg.appendChild(el("rect", { x: pos[0] + 4, y: pos[1] + 4, width: S.cell - 8, height: S.cell - 8, rx: 3,
        fill: hidden ? S["unknown_" + colour] : S[colour], stroke: S[colour], "stroke-width": 2 }));
      heatCell(svg, pos, sq, who);
      var guess = hidden && state.guesses ? belief(who, sq) : null;
      svg.appendChild(el("text", { "class": guess ? "piece guess" : "piece", x: pos[0] + S.cell / 2, y: pos[1] + S.cell / 2 - (guess ? 4 : 0),
        fill: S.label, "font-size": guess ? 13 : 15, "font-weight": "bold", "font-style": guess ? "italic" : "normal",
        "text-anchor": "middle", "dominant-baseline": "central" }, guess ? config.labels[state.numbering][guess[0]] + "?" : (hidden ? "?" : label(code))));
      if (guess) {
        svg.appendChild(el("text", { "class": "guess-chance", x: pos[0] + S.cell / 2, y: pos[1] + S.cell - 10, fill: S.label,
          "font-size": 9, "text-anchor": "middle", "dominant-baseline": "central" }, guess[1] + "%"));
      }
      if (hidden && (flags[sq] & F.moved)) {
        svg.appendChild(el("circle", { cx: pos[0] + S.cell - 9, cy: pos[1] + 9, r: 3.5, fill: S[colour] }));
      }
      if (who !== 0 && side(code) === who && (flags[sq] & F.known)) {
        svg.appendChild(el("path", { d: "M" + (pos[0] + 4) + " " + (pos[1] + 14) + "v-10h10z", fill: "#fff" }));
      }
    }
    drawBeliefs(svg, flip, who);
    drawLikely(svg, flip, who);
    if (battle) {
      var target = xy(game.moves[ply - 1] % 100, flip), text = battleBadge(battle, who);
      var bx = Math.min(Math.max(target[0] - 12, S.margin), S.margin + 10 * S.cell - 64), by = target[1] > 20 ? target[1] - 18 : target[1] + S.cell;
      svg.appendChild(el("rect", { x: bx, y: by, width: 64, height: 18, rx: 4, fill: S.battle }));
      svg.appendChild(el("text", { x: bx + 32, y: by + 9, fill: "#fff", "font-size": 12, "font-weight": "bold",
        "text-anchor": "middle", "dominant-baseline": "central" }, text));
    }
    svg.addEventListener("mousemove", function (event) { pointAt(event, flip); });
    svg.addEventListener("click", function (event) { pointAt(event, flip, true); });
    boardEl.replaceChildren(svg);
    boardEl.setAttribute("aria-label", "board after ply " + ply);
  }

  // Side `who`'s belief about the piece on `sq` at the shown ply: [likeliest kind, its
  // percent, the flag's permille], or null where `who` holds none (its own piece, one it
  // identified, no piece). Only `who`'s own beliefs: made from what `who` knew.
  function belief(who, sq) {
    var rows = state.cache.beliefs, row;
    if (!rows || who === 0) { return null; }
    row = rows[sideName(who)][state.ply];
    return row[sq * 3] ? [row[sq * 3] - 1, row[sq * 3 + 1], row[sq * 3 + 2]] : null;
  }

  // The flag heat (each unidentified opponent piece shaded by the belief that it is the
  // flag; in the full view each side's pieces by the other's belief) and, in the full view
  // with the guesses on, how much the opponent's belief put on each piece's true rank.
  function drawBeliefs(svg, flip, who) {
    var cache = state.cache, sq, pos, found = [], top = 0, sides = who === 0 ? [1, 2] : [who];
    if (!cache.beliefs || (!state.heat && !(state.guesses && who === 0))) { return; }
    for (sq = 0; sq < 100; sq++) {
      sides.forEach(function (s) { var b = belief(s, sq); if (b) { found.push([sq, b[2]]); top = Math.max(top, b[2]); } });
    }
    if (state.heat) {
      found.forEach(function (f) {
        pos = xy(f[0], flip);
        svg.appendChild(el("text", { "class": "heat-chance", x: pos[0] + S.cell / 2, y: pos[1] + 9, fill: "#000", "font-size": 9,
          "font-weight": "bold", "text-anchor": "middle", "dominant-baseline": "central" }, M.permille(f[1])));
      });
    }
    if (state.guesses && who === 0) {
      var right = cache.beliefs.right[state.ply];
      for (sq = 0; sq < 100; sq++) {
        if (!right[sq]) { continue; }
        pos = xy(sq, flip);
        svg.appendChild(el("text", { "class": "right-chance", x: pos[0] + S.cell / 2, y: pos[1] + S.cell - 10, fill: S.label,
          "font-size": 9, "text-anchor": "middle", "dominant-baseline": "central" }, (right[sq] - 1) + "%"));
      }
    }
  }

  // The flag heat under a piece's label: its square shaded by the belief that it is the
  // flag, against the likeliest square of the view's beliefs.
  function heatCell(svg, pos, sq, who) {
    var sides = who === 0 ? [1, 2] : [who], top = 0, mine = null, s2, b;
    if (!state.heat || !state.cache.beliefs) { return; }
    for (s2 = 0; s2 < 100; s2++) {
      sides.forEach(function (s) { b = belief(s, s2); if (b) { top = Math.max(top, b[2]); if (s2 === sq) { mine = b; } } });
    }
    if (!mine) { return; }
    svg.appendChild(el("rect", { "class": "heat", x: pos[0] + 4, y: pos[1] + 4, width: S.cell - 8, height: S.cell - 8, rx: 3,
      fill: "#ff7a00", "fill-opacity": top ? (0.08 + 0.8 * mine[2] / top).toFixed(3) : 0, stroke: "#e06c00", "stroke-width": 2 }));
  }

  // Who moves at ply `ply` (1 red, 2 blue: red moves first), and whether the view may show
  // the model's chances for that move (made from the mover's knowledge).
  function mover(ply) { return ply % 2 === 1 ? 1 : 2; }
  function modelShown(ply, who) {
    var model = games[state.game].model;
    return !!model && ply >= 1 && ply <= model.top.length && (who === 0 || mover(ply) === who);
  }

  // The model's likeliest next moves as arrows from the shown position.
  function drawLikely(svg, flip, who) {
    var model = games[state.game].model, next = state.ply + 1, top, i, a, z, h = S.cell / 2;
    if (!state.arrows || !modelShown(next, who)) { return; }
    top = model.top[next - 1];
    for (i = top.length - 2; i >= 0; i -= 2) {
      a = xy(Math.floor(top[i] / 100), flip); z = xy(top[i] % 100, flip);
      var p = top[i + 1] / config.moveScale, dx = z[0] - a[0], dy = z[1] - a[1], len = Math.sqrt(dx * dx + dy * dy) || 1;
      var ex = z[0] + h - dx / len * 9, ey = z[1] + h - dy / len * 9, nx = -dy / len, ny = dx / len;
      svg.appendChild(el("path", { "class": "likely", d: "M" + (a[0] + h) + " " + (a[1] + h) + " L" + ex + " " + ey,
        stroke: "#12753a", "stroke-width": (2 + 7 * p).toFixed(1), "stroke-opacity": 0.8, "stroke-linecap": "round", fill: "none" }));
      svg.appendChild(el("path", { "class": "likely-head", fill: "#12753a", "fill-opacity": 0.9,
        d: "M" + (z[0] + h) + " " + (z[1] + h) + " L" + (ex + nx * 7) + " " + (ey + ny * 7) + " L" + (ex - nx * 7) + " " + (ey - ny * 7) + "z" }));
      svg.appendChild(el("text", { "class": "likely-chance", x: (a[0] + z[0]) / 2 + h + nx * 9, y: (a[1] + z[1]) / 2 + h + ny * 9,
        fill: "#0b4d26", "font-size": 11, "font-weight": "bold", "text-anchor": "middle", "dominant-baseline": "central",
        stroke: "#fff", "stroke-width": 3, "paint-order": "stroke" }, M.percent(top[i + 1], config.moveScale)));
    }
  }

  function moveName(move) { return sqName(Math.floor(move / 100)) + "\u2013" + sqName(move % 100); }

  // The model's line under the board: the shown ply's move, how likely the model found it,
  // and the likeliest next moves, each only where the view's side made that move.
  function modelPanel() {
    var game = games[state.game], model = game.model, box = $("model"), who = viewSide(), ply = state.ply, line;
    box.replaceChildren();
    delete boardEl.dataset.modelPlayed; delete boardEl.dataset.modelTop;
    $("model-options").hidden = !model && !game.beliefs;
    if (!model) { box.textContent = game.model_note || ""; return; }
    function add(text, name) { line = document.createElement("div"); line.className = name; line.textContent = text; box.appendChild(line); }
    if (ply >= 1 && modelShown(ply, who)) {
      var odds = M.percent(model.played[ply - 1], config.moveScale);
      add("Ply " + ply + ", " + sideName(mover(ply)) + " " + moveName(game.moves[ply - 1]) + ": the model (" + model.policy +
        ") gave it " + odds + ", rank " + model.rank[ply - 1] + " of " + model.legal[ply - 1] + " legal moves.", "played");
      boardEl.dataset.modelPlayed = String(model.played[ply - 1]);
    } else if (ply >= 1 && ply <= model.top.length) {
      add("Ply " + ply + " was " + sideName(mover(ply)) + "'s move: its chances need " + sideName(mover(ply)) +
        "'s pieces, which " + sideName(who) + " did not see.", "hidden-move");
    }
    if (modelShown(ply + 1, who)) {
      var top = model.top[ply], names = [], i;
      for (i = 0; i < top.length; i += 2) { names.push(moveName(top[i]) + " " + M.percent(top[i + 1], config.moveScale)); }
      add("Likely next for " + sideName(mover(ply + 1)) + ": " + names.join(" \u00B7 "), "likely");
      boardEl.dataset.modelTop = JSON.stringify(top);
    } else if (ply < model.top.length) {
      add(sideName(mover(ply + 1)).replace(/^./, function (c) { return c.toUpperCase(); }) + " to move: the model's choices for " +
        sideName(mover(ply + 1)) + " are not shown in " + sideName(who) + "'s view.", "likely");
    }
  }

  // The game's most surprising moves in the view (in a side's view only its own), up to
  // the plies shown: each a link to its ply.
  function fillSurprises() {
    var game = games[state.game], list = $("surprises"), model = game.model, upto = shownUpTo();
    list.replaceChildren();
    $("surprises-head").hidden = !model;
    if (!model) { return; }
    model.surprising[state.view].forEach(function (ply) {
      if (ply > upto) { return; }
      var li = document.createElement("li"), a = document.createElement("a");
      a.href = hashFor(ply);
      a.textContent = "ply " + ply + ": " + sideName(mover(ply)) + " " + moveName(game.moves[ply - 1]) + ", " +
        M.percent(model.played[ply - 1], config.moveScale) + " (rank " + model.rank[ply - 1] + " of " + model.legal[ply - 1] + ")";
      li.dataset.ply = String(ply);
      li.appendChild(a);
      list.appendChild(li);
    });
  }

  function surprisePlies() {
    var model = games[state.game].model, upto = shownUpTo();
    return model ? model.surprising[state.view].filter(function (p) { return p <= upto; }).sort(function (a, b) { return a - b; }) : [];
  }
  function nextSurprise() { var p = surprisePlies().filter(function (q) { return q > state.ply; }); if (p.length) { go(p[0]); } }
  function prevSurprise() { var p = surprisePlies().filter(function (q) { return q < state.ply; }); if (p.length) { go(p[p.length - 1]); } }
  function toggle(name) { state[name] = !state[name]; render(); }

  function pointAt(event, flip, tapped) {
    var svg = event.currentTarget, box = svg.getBoundingClientRect(), scale = box.width / svg.viewBox.baseVal.width;
    var col = Math.floor(((event.clientX - box.left) / scale - S.margin) / S.cell);
    var row = 9 - Math.floor((event.clientY - box.top) / scale / S.cell);
    if (col < 0 || col > 9 || row < 0 || row > 9) { return; }
    if (flip) { row = 9 - row; col = 9 - col; }
    var sq = row * 10 + col, cache = state.cache;
    var id = cache.pieces ? cache.pieces.ids[state.ply][sq] : -1;
    if (id === state.info && !tapped) { return; }
    state.info = id; state.infoSquare = sq;
    pieceInfo();
  }

  // The history of the piece pointed at, up to the shown ply, as the view's side knew it.
  function pieceInfo() {
    var box = $("piece-info"), game = games[state.game], cache = state.cache, who = viewSide(), id = state.info;
    box.replaceChildren();
    if (!cache.pieces || id < 0 || cache.pieces.ids[state.ply][state.infoSquare] !== id) {
      box.textContent = "Point at a piece (or tap it) for its history.";
      box.dataset.square = "";
      return;
    }
    var piece = cache.pieces.pieces[id], ply = state.ply, sq = state.infoSquare;
    var hidden = hiddenFor(piece.code, cache.flags[ply][sq], who), mine = who === 0 || P.side(piece.code) === who;
    var head = document.createElement("div");
    head.className = "head";
    head.textContent = sideName(P.side(piece.code)) + " " + (hidden ? "piece (not identified)" : label(piece.code) +
      " (" + KINDS[kind(piece.code)] + ")") + " on " + sqName(sq) + ", set up on " + sqName(piece.start);
    box.appendChild(head);
    box.dataset.square = sqName(sq);
    var moves = [], lines = [], shown = {};
    piece.events.forEach(function (e) { if (e[1] === "revealed") { shown[e[0]] = true; } });
    piece.events.forEach(function (e) {
      if (e[0] > ply) { return; }
      if (e[1] === "move") { moves.push(e[0]); return; }
      if (e[1] === "battle") { lines.push("ply " + e[0] + ": " + (e[2] === "attacker" ? "attacked. " : "was attacked. ") + battleText(game, e[0], who)); }
      if (e[1] === "revealed") { lines.push("ply " + e[0] + ": rank shown " + (game.battles[String(e[0])] ? "in a battle" : "by a rescue")); }
      if (e[1] === "known" && mine && who !== 0) { lines.push("ply " + e[0] + ": " + sideName(3 - who) + " identified it"); }
      if (e[1] === "known" && who === 0 && !shown[e[0]]) { lines.push("ply " + e[0] + ": identified by its move (only a scout moves so)"); }
      if (e[1] === "rescued") { lines.push("ply " + e[0] + ": brought back by a rescue"); }
    });
    lines.unshift(moves.length ? "moved " + moves.length + "\u00D7, at ply " + moves.join(", ") : "has not moved");
    var guess = hidden ? belief(who, sq) : null, right = who === 0 && cache.beliefs ? cache.beliefs.right[ply][sq] : 0;
    if (guess) {
      lines.push(sideName(who) + "'s belief: probably " + (guess[0] === 11 ? "the " : "a ") + KINDS[guess[0]] + " (" +
        config.labels[state.numbering][guess[0]] + ", " + guess[1] + "%); the flag: " + M.permille(guess[2]));
    }
    if (right) {
      lines.push(sideName(3 - P.side(piece.code)) + "'s belief put " + (right - 1) + "% on its true rank (" + KINDS[kind(piece.code)] + ")");
    }
    lines.forEach(function (text) { var d = document.createElement("div"); d.textContent = text; box.appendChild(d); });
  }

  function remainingPanel() {
    var box = $("remaining"), board = state.cache.boards[state.ply], flags = state.cache.flags[state.ply], who = viewSide();
    var red = P.remaining(board, 1, KINDS), blue = P.remaining(board, 2, KINDS), order = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11];
    box.dataset.red = JSON.stringify(red);
    box.dataset.blue = JSON.stringify(blue);
    box.replaceChildren();
    function row(title, counts, colour) {
      var line = document.createElement("div"), head = document.createElement("span"), total = 0;
      line.className = "pile";
      order.forEach(function (k) {
        if (!counts[KINDS[k]]) { return; }
        total += counts[KINDS[k]];
        var chip = document.createElement("span");
        chip.className = "chip " + colour;
        chip.title = counts[KINDS[k]] + " " + colour + " " + KINDS[k];
        chip.textContent = config.labels[state.numbering][k] + "\u00D7" + counts[KINDS[k]];
        line.appendChild(chip);
      });
      head.textContent = title + " (" + total + "): ";
      line.insertBefore(head, line.firstChild);
      box.appendChild(line);
    }
    if (who === 0) {
      row("Red on the board", red, "red"); row("Blue on the board", blue, "blue");
      delete box.dataset.identified; delete box.dataset.unidentified;
      return;
    }
    delete box.dataset[sideName(3 - who)];  // a side's view holds no true count of the other's
    var other = P.identified(board, flags, who, KINDS, F.known);
    box.dataset.identified = JSON.stringify(other.known);
    box.dataset.unidentified = String(other.unknown);
    row(sideName(who).replace(/^./, function (c) { return c.toUpperCase(); }) + " on the board", who === 1 ? red : blue, sideName(who));
    row(sideName(3 - who) + " on the board that " + sideName(who) + " has identified", other.known, sideName(3 - who));
    var rest = document.createElement("div");
    rest.className = "pile";
    rest.textContent = "and " + other.unknown + " " + sideName(3 - who) + " pieces " + sideName(who) + " has not identified";
    box.appendChild(rest);
  }

  function drawGraph() {
    var box = $("graph"), game = games[state.game];
    if (!state.cache.material) { box.replaceChildren(); return; }
    var width = Math.max(200, Math.min(boardEl.clientWidth || 540, 540));
    box.replaceChildren(P.graph(state.cache.material, game.battles, state.ply, shownUpTo(), [S.red, S.blue, S.battle], width));
    box.dataset.width = String(width);
  }

  // Red's chance of winning in the chosen view, per ply (thousandths, computed when the page
  // was built: a side's view used only what that side knew), up to the plies shown.
  function drawChance() {
    var game = games[state.game], series = game.chance ? game.chance[state.view] : null;
    var text = $("chance-text"), box = $("chance-graph");
    if (!series) { text.textContent = game.chance_note || ""; box.replaceChildren(); delete boardEl.dataset.chance; return; }
    var value = series[state.ply], upto = Math.min(shownUpTo(), series.length - 1);
    var who = state.view === "all" ? "everything" : "as " + state.view + " saw it";
    var red = Math.round(value / 10);  // blue's is what is left, so the two add to 100%
    text.textContent = "Win chance (" + game.variant + " win model, " + who + "): red " + red + "%" +
      " \u00B7 blue " + (100 - red) + "%";
    boardEl.dataset.chance = String(value);
    var width = Math.max(200, Math.min(boardEl.clientWidth || 540, 540));
    box.replaceChildren(P.chanceGraph(series, state.ply, upto, [S.red, S.blue], width));
    box.dataset.width = String(width);
  }

  function copyOut() {
    var game = games[state.game], cache = state.cache, who = viewSide();
    $("position-string").value = game.field ? P.strados3(cache.boards[state.ply], cache.flags[state.ply], state.ply, who, F, LETTERS) : "";
    // A side's view never copies out the opponent's setup: that side never saw it.
    $("setup-red").value = game.setups && who !== 2 ? game.setups[0] : "";
    $("setup-blue").value = game.setups && who !== 1 ? game.setups[1] : "";
  }

  function copy(id) {
    var input = $(id), done = function () { $("copied").textContent = "Copied " + input.getAttribute("aria-label") + "."; };
    input.focus(); input.select();
    try {
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(input.value).then(done, function () { legacyCopy(done); });
        return;
      }
    } catch (err) { /* an iframe may forbid the clipboard: fall back below */ }
    legacyCopy(done);
  }
  function legacyCopy(done) {
    try { if (document.execCommand("copy")) { done(); return; } } catch (err) { /* no clipboard at all */ }
    $("copied").textContent = "Selected: press Ctrl+C to copy.";
  }

  // The key events as side `who` knew them (all of them in the view of everything): an event
  // of a battle that did not show `who` an opponent piece's rank (silent defense) would name
  // it, so it reads as the battle did for `who`, once per ply.
  function viewEvents(game, who) {
    var said = {};
    if (who === 0) { return game.events; }
    return game.events.reduce(function (out, e) {
      var b = e[1] !== "end" && game.battles[String(e[0])];
      var unseen = b && ((side(b[0]) !== who && !(b[3] & 1)) || (side(b[1]) !== who && !(b[3] & 2)));
      if (!unseen) { out.push(e); } else if (e[1] !== "battle" && !said[e[0]]) {
        said[e[0]] = true;  // its kind stays (spoilers, next event); its words are the view's
        out.push([e[0], e[1], battleText(game, e[0], who), true]);
      }
      return out;
    }, []);
  }

  function battleBadge(b, who) {
    function rank(code, bit) { return (who === 0 || side(code) === who || (b[3] & bit)) ? label(code) : "?"; }
    return rank(b[0], 1) + " \u00D7 " + rank(b[1], 2);
  }

  function fieldString(board, flags, who) {
    var out = "", sq, code;
    for (sq = 0; sq < 100; sq++) {
      code = board[sq];
      out += (who !== 0 && hiddenFor(code, flags[sq], who)) ? "?" : LETTERS.charAt(code);
    }
    return out;
  }

  function chips(counts, offset, colour, grouped) {
    var frag = document.createDocumentFragment(), order = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11], j, n, chip, k;
    for (j = 0; j < order.length; j++) {
      k = order[j];
      for (n = 0; n < (grouped ? Math.min(1, counts[offset + k]) : counts[offset + k]); n++) {
        chip = document.createElement("span");
        chip.className = "chip " + colour;
        chip.title = colour + " " + KINDS[k];
        chip.textContent = config.labels[state.numbering][k] + (grouped && counts[offset + k] > 1 ? "\u00D7" + counts[offset + k] : "");
        frag.appendChild(chip);
      }
    }
    return frag;
  }

  function pile(title, node, empty) {
    var div = document.createElement("div"), head = document.createElement("div");
    div.className = "pile"; head.textContent = title + (node.childNodes.length ? "" : " " + empty);
    div.appendChild(head); div.appendChild(node);
    return div;
  }

  // A side's losses as the view knew them: in a side's view the opponent's pieces it saw go
  // without their rank (silent defense) are "?", never their true rank.
  function losses(s, who) {
    var cache = state.cache, ply = state.ply, counts = cache.captured[ply].slice(), unnamed = 0, k, frag, chip;
    if (who !== 0 && s !== who) {
      for (k = 0; k < 12; k++) { unnamed += cache.lostUnseen[ply][(s - 1) * 12 + k]; counts[(s - 1) * 12 + k] -= cache.lostUnseen[ply][(s - 1) * 12 + k]; }
    }
    frag = chips(counts, (s - 1) * 12, sideName(s));
    if (unnamed) {
      chip = document.createElement("span");
      chip.className = "chip " + sideName(s) + " unnamed";
      chip.title = unnamed + " " + sideName(s) + " pieces taken without their rank shown";
      chip.textContent = "?\u00D7" + unnamed;
      frag.appendChild(chip);
    }
    return frag;
  }

  function panels() {
    var game = games[state.game], cache = state.cache, ply = state.ply, who = viewSide();
    var captured = $("captured"), unseen = $("unseen"), title;
    captured.replaceChildren();
    captured.appendChild(pile("Red has lost:", losses(1, who), "nothing yet"));
    captured.appendChild(pile("Blue has lost:", losses(2, who), "nothing yet"));
    unseen.replaceChildren();
    if (who !== 0) {
      title = sideName(3 - who) + " pieces " + sideName(who) + " has not identified yet:";
      if (game.armyShown === false) {
        unseen.appendChild(pile(title, document.createDocumentFragment(),
          "ranks unknown (free setup: the rules show no army)"));
      } else {
        unseen.appendChild(pile(title, chips(cache.unseen[ply], (who - 1) * 12, sideName(3 - who), true), "none"));
      }
    }
  }

  function status() {
    var game = games[state.game], ply = state.ply, who = viewSide(), box = $("status"), line;
    box.replaceChildren();
    line = document.createElement("div");
    if (!game.field) {
      line.textContent = "No board to show: " + game.end + ".";
    } else if (ply === 0) {
      line.textContent = "Setup. Red moves first.";
    } else {
      var move = game.moves[ply - 1], from = Math.floor(move / 100);
      var code = state.cache.boards[ply - 1][from], bits = state.cache.flags[ply - 1][from];
      var piece = hiddenFor(code, bits, who) ? "" : " " + label(code) + " (" + KINDS[kind(code)] + ")";
      line.textContent = "Ply " + ply + " of " + game.plies + ": " + sideName(side(code)) + piece + " " +
        sqName(from) + "\u2013" + sqName(move % 100) + ". " + battleText(game, ply, who);
    }
    box.appendChild(line);
    var here = viewEvents(game, who).filter(function (e) {
      return e[0] === ply && e[1] !== "battle" && e[1] !== "end" && e[1] !== "first_capture" && !e[3] &&
        (ply === game.plies || state.spoilers || e[1] !== "flag_captured");
    });
    here.forEach(function (e) { var d = document.createElement("div"); d.textContent = e[2]; box.appendChild(d); });
    if (ply === game.plies && game.field) {
      var end = document.createElement("div");
      end.className = "end";
      end.textContent = "End: " + game.end + ".";
      box.appendChild(end);
    }
  }

  function fillLists() {
    var game = games[state.game], moves = $("moves"), events = $("events"), i, upto = shownUpTo();
    moves.replaceChildren(); events.replaceChildren(); state.marked = []; state.listed = upto + state.view;
    for (i = 0; i < upto; i++) {
      var li = document.createElement("li"), m = game.moves[i];
      li.textContent = (i % 2 === 0 ? (i / 2 + 1) + ". " : "") + sqName(Math.floor(m / 100)) +
        (game.battles[String(i + 1)] ? "\u00D7" : "\u2013") + sqName(m % 100);
      li.title = "ply " + (i + 1) + (i % 2 === 0 ? ", red" : ", blue");
      if (game.battles[String(i + 1)]) { li.className = "battle"; }
      li.dataset.ply = String(i + 1);
      moves.appendChild(li);
    }
    var swings = (game.swings && game.swings[state.view] || []).map(function (w) { return [w[0], "swing", w[1]]; });
    viewEvents(game, viewSide()).concat(swings).sort(function (a, b) { return (a[1] === "end") - (b[1] === "end") || a[0] - b[0]; }).forEach(function (e) {
      if (e[1] === "battle" || e[0] > upto || (upto < game.plies && (e[1] === "end" || e[1] === "flag_captured"))) { return; }
      var li = document.createElement("li");
      li.textContent = (e[1] === "end" ? "end" : "ply " + e[0]) + ": " + e[2];
      li.dataset.ply = String(e[0]);
      if (e[1] === "swing") { li.className = "swing"; }
      events.appendChild(li);
    });
  }

  function highlight() {
    var selector = 'li[data-ply="' + state.ply + '"]';
    (state.marked || []).forEach(function (item) { item.classList.remove("current"); });
    state.marked = [];
    ["moves", "events", "surprises"].forEach(function (id) {
      var list = $(id), items = list.querySelectorAll(selector), i;
      for (i = 0; i < items.length; i++) { items[i].classList.add("current"); state.marked.push(items[i]); }
      if (items.length) {
        var top = items[0].offsetTop - list.offsetTop, bottom = top + items[0].offsetHeight;
        if (top < list.scrollTop || bottom > list.scrollTop + list.clientHeight) { list.scrollTop = top - list.clientHeight / 2; }
      }
    });
  }

  function meta() {
    var game = games[state.game], hide = !state.spoilers && state.ply < game.plies;
    $("game-meta").textContent = (game.variant || "unknown variant") + " \u00B7 " + game.plies + " plies" +
      (game.recorded !== game.plies ? " (of " + game.recorded + " recorded)" : "") +
      (game.rules ? " \u00B7 rules " + game.rules : "") + " \u00B7 " + (hide ? "result hidden until the last ply" : game.end);
  }

  function render() {
    var game = games[state.game], who = viewSide(), cache = state.cache;
    if (state.listed !== shownUpTo() + state.view) { fillLists(); fillSurprises(); }
    draw(); panels(); status(); highlight(); meta();
    if (game.field) { remainingPanel(); } else { $("remaining").replaceChildren(); }
    drawGraph(); drawChance(); modelPanel(); copyOut(); pieceInfo();
    ["arrows", "guesses", "heat"].forEach(function (name) { $("show-" + name).checked = state[name]; boardEl.dataset[name] = String(state[name]); });
    boardEl.dataset.flipped = String(flipped());
    boardEl.dataset.spoilers = String(state.spoilers);
    boardEl.dataset.ply = String(state.ply);
    boardEl.dataset.view = state.view;
    boardEl.dataset.field = game.field ? fieldString(cache.boards[state.ply], cache.flags[state.ply], 0) : "";
    if (who !== 0 && game.field) {
      boardEl.dataset.known = fieldString(cache.boards[state.ply], cache.flags[state.ply], who);
    } else {
      delete boardEl.dataset.known;
    }
    document.querySelectorAll('input[name="view"]').forEach(function (r) { r.checked = r.value === state.view; });
    showMissing();
    writeHash();
  }

  function go(ply) {
    var n = games[state.game].plies;
    state.ply = Math.max(0, Math.min(n, ply));
    if (state.ply === n) { stop(); }
    render();
  }

  function nextWhere(test) {
    var game = games[state.game], p;
    for (p = state.ply + 1; p <= game.plies; p++) { if (test(game, p)) { return go(p); } }
    return go(game.plies);
  }

  function prevWhere(test) {
    var game = games[state.game], p;
    for (p = state.ply - 1; p >= 1; p--) { if (test(game, p)) { return go(p); } }
    return go(0);
  }

  function isBattle(g, p) { return !!g.battles[String(p)]; }
  function isEvent(g, p) { return g.events.some(function (e) { return e[0] === p && e[1] !== "battle"; }); }
  function nextBattle() { nextWhere(isBattle); }
  function nextEvent() { nextWhere(isEvent); }
  function prevBattle() { prevWhere(isBattle); }
  function prevEvent() { prevWhere(isEvent); }
  function flip() { state.flip = !state.flip; render(); }

  function stop() {
    if (state.timer) { clearInterval(state.timer); state.timer = null; }
    $("play").textContent = "\u25B6 play";
  }
  function play() {
    if (state.timer) { return stop(); }
    if (state.ply >= games[state.game].plies) { go(0); }
    state.timer = setInterval(function () { go(state.ply + 1); }, 600);
    $("play").textContent = "\u23F8 pause";
  }

  function setView(view) { if (VIEWS.indexOf(view) >= 0) { state.view = view; render(); } }

  function loadGame(index) {
    stop();
    state.missing = null;
    state.game = index;
    state.cache = build(games[index]);
    state.ply = 0;
    var game = games[index];
    state.info = -1; state.listed = -1;
    $("game-title").textContent = game.id;
    $("game-picker").value = String(index);
  }

  // A malformed escape (#ply=%) is taken as written, never an error that stops the page.
  function decode(text) { try { return decodeURIComponent(text); } catch (err) { return text; } }

  function readHash() {
    var params = Object.create(null), parts = location.hash.replace(/^#/, "").split("&"), i, found = -1;
    parts.forEach(function (part) {
      var at = part.indexOf("=");
      if (at > 0) { params[decode(part.slice(0, at))] = decode(part.slice(at + 1)); }
    });
    state.missing = null;
    if (params.game !== undefined) {
      for (i = 0; i < games.length && found < 0; i++) { if (games[i].id === params.game) { found = i; } }
      // Never another game in its place: the page says it lacks this one (showMissing).
      if (found < 0) { state.missing = params.game; return; }
      if (found !== state.game) { loadGame(found); }
    }
    if (params.spoilers !== undefined) { state.spoilers = params.spoilers !== "0"; }
    state.flip = params.flip === "1";
    state.view = params.view !== undefined && VIEWS.indexOf(params.view) >= 0 ? params.view : "all";
    state.ply = params.ply !== undefined && /^\d+$/.test(params.ply) ?
      Math.min(parseInt(params.ply, 10), games[state.game].plies) : 0;
  }

  var shellWord = StratShellWord;  // shell.js

  // A link to a game this page does not hold: say so, with the command that builds a page
  // that does; the link's address stays as it was.
  function showMissing() {
    var box = $("missing"), id = state.missing;
    box.hidden = id === null;
    ["game-title", "game-meta"].forEach(function (name) { $(name).hidden = id !== null; });
    document.querySelector("main").hidden = id !== null;
    if (id === null) { return; }
    box.dataset.game = id;
    box.replaceChildren();
    box.appendChild(document.createTextNode("This page does not hold the game " + JSON.stringify(id) +
      " (it holds " + games.length + (games.length === 1 ? " game" : " games") +
      "). A page that does, from this page's inputs: "));
    var code = document.createElement("code");
    code.textContent = (config.build || "strat-tools view PATHS") + " --game " + shellWord(id) + " -o game.html";
    box.appendChild(code);
    box.appendChild(document.createTextNode(" (if the link came from a page built from other paths or " +
      "filters, give those). "));
    var open = document.createElement("button");
    open.type = "button";
    open.id = "open-held";
    open.textContent = games.length === 1 ? "show this page's game" : "show this page's games";
    open.addEventListener("click", function () { loadGame(state.game); render(); });
    box.appendChild(open);
  }

  function hashFor(ply) {
    return "#ply=" + ply + (state.view !== "all" ? "&view=" + state.view : "") +
      (state.flip ? "&flip=1" : "") + (state.spoilers === config.spoilers ? "" : "&spoilers=" + (state.spoilers ? "1" : "0")) +
      (games.length > 1 ? "&game=" + encodeURIComponent(games[state.game].id) : "");
  }

  function writeHash() {
    if (state.missing !== null) { return; }
    var hash = hashFor(state.ply);
    if (location.hash === hash) { return; }
    // Jupyter's sandboxed srcdoc frame refuses a new address: the state stays in the page.
    try { history.replaceState(null, "", hash); } catch (err) { state.unlinked = true; }
  }

  function onKey(event) {
    if (event.target && /^(SELECT|INPUT|TEXTAREA)$/.test(event.target.tagName)) { return; }
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var actions = {
      ArrowRight: function () { go(state.ply + 1); }, ArrowLeft: function () { go(state.ply - 1); },
      Home: function () { go(0); }, End: function () { go(games[state.game].plies); },
      PageDown: function () { go(state.ply + 10); }, PageUp: function () { go(state.ply - 10); },
      " ": play, b: nextBattle, e: nextEvent, B: prevBattle, E: prevEvent, f: flip,
      s: nextSurprise, S: prevSurprise, m: function () { toggle("arrows"); },
      g: function () { toggle("guesses"); }, h: function () { toggle("heat"); },
      v: function () { setView(VIEWS[(VIEWS.indexOf(state.view) + 1) % 3]); }
    };
    var action = actions[event.key];
    if (action) { event.preventDefault(); action(); }
  }

  // Keep the picker's games whose id, variant or players hold every word typed; the shown
  // game stays listed, and the first match opens when the shown one does not match.
  function filterGames() {
    var words = $("game-filter").value.toLowerCase().split(/\s+/).filter(Boolean), picker = $("game-picker");
    var first = -1, count = 0, matches = function (game) {
      var text = [game.id, game.variant].concat(game.players || []).join(" ").toLowerCase();
      return words.every(function (w) { return text.indexOf(w) >= 0; });
    };
    Array.prototype.forEach.call(picker.options, function (option) {
      var i = parseInt(option.value, 10), ok = matches(games[i]);
      option.hidden = !ok; option.disabled = !ok;
      if (ok) { count++; if (first < 0) { first = i; } }
    });
    $("filter-count").textContent = count + " of " + games.length;
    if (first >= 0 && !matches(games[state.game])) { loadGame(first); render(); }
  }

  function init() {
    var picker = $("game-picker");
    games.forEach(function (game, i) {
      var option = document.createElement("option");
      option.value = String(i);
      option.textContent = game.id + " (" + (game.variant || "unknown variant") + ", " + game.plies + " plies" +
        (game.players && game.players.length ? ", " + game.players.join(" vs ") : "") + ")";
      picker.appendChild(option);
    });
    $("picker-label").style.display = games.length > 1 ? "" : "none";
    $("filter-label").style.display = games.length > 1 ? "" : "none";
    $("note").textContent = config.note || "";
    $("numbering").value = state.numbering;
    picker.addEventListener("change", function () { loadGame(parseInt(picker.value, 10)); render(); picker.blur(); });
    $("numbering").addEventListener("change", function () { state.numbering = $("numbering").value; fillLists(); render(); });
    document.querySelectorAll('input[name="view"]').forEach(function (r) {
      r.addEventListener("change", function () { setView(r.value); r.blur(); });
    });
    var buttons = { first: function () { go(0); }, back10: function () { go(state.ply - 10); },
      prev: function () { go(state.ply - 1); }, play: play, next: function () { go(state.ply + 1); },
      fwd10: function () { go(state.ply + 10); }, last: function () { go(games[state.game].plies); },
      "next-battle": nextBattle, "next-event": nextEvent, "prev-battle": prevBattle,
      "prev-event": prevEvent, flip: flip,
      "copy-position": function () { copy("position-string"); },
      "copy-setup-red": function () { copy("setup-red"); }, "copy-setup-blue": function () { copy("setup-blue"); } };
    Object.keys(buttons).forEach(function (id) {
      // Blur after a click, so that a later space or arrow key is the page's, not the button's.
      $(id).addEventListener("click", function (event) { event.currentTarget.blur(); buttons[id](); });
    });
    ["moves", "events"].forEach(function (id) {
      $(id).addEventListener("click", function (event) {
        var item = event.target.closest("li");
        if (item && item.dataset.ply) { go(parseInt(item.dataset.ply, 10)); }
      });
    });
    ["graph", "chance-graph"].forEach(function (id) {
      $(id).addEventListener("click", function (event) {
        var box = $(id).firstChild;
        if (!box) { return; }
        var rect = box.getBoundingClientRect(), width = parseFloat($(id).dataset.width);
        var ply = P.plyAt((event.clientX - rect.left) * width / rect.width, width, games[state.game].plies);
        go(Math.min(ply, shownUpTo()));
      });
    });
    $("surprises").addEventListener("click", function (event) {  // also in a frame that keeps its address
      var item = event.target.closest("li");
      if (item && item.dataset.ply) { event.preventDefault(); go(parseInt(item.dataset.ply, 10)); }
    });
    ["arrows", "guesses", "heat"].forEach(function (name) {
      $("show-" + name).addEventListener("change", function (event) { state[name] = event.target.checked; event.target.blur(); render(); });
    });
    $("game-filter").addEventListener("input", filterGames);
    $("game-filter").addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === "Escape") { event.preventDefault(); event.target.blur(); }
    });
    window.addEventListener("resize", function () { drawGraph(); drawChance(); });
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", function () { readHash(); render(); });
    loadGame(0);
    readHash();
    render();
  }

  init();
}());
