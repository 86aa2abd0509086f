(function () {
  "use strict";
  // The setup explorer (strat_tools/views/explorer.py packs the data). Squares are setup-code
  // indices: owner_row * 10 + col, owner_row 0 the back row, col 0 the owner's left.
  var CONFIG = JSON.parse(document.getElementById("explorer-config").textContent);
  var DATA = JSON.parse(document.getElementById("explorer-data").textContent);
  var SQUARES = 40, KINDS = CONFIG.other + 1, ALL = CONFIG.grammar.all;
  var SYMBOLS = CONFIG.grammar.drawn;           // byte -> symbol (0 "_", 13 "#")
  var NAMES = CONFIG.names.concat(["other"]);
  var PIECES = [12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];  // flag, bomb, spy, 2..9, marshal
  var $ = function (id) { return document.getElementById(id); };

  function bytesOf(b64) {
    var text = atob(b64), out = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) { out[i] = text.charCodeAt(i); }
    return out;
  }
  function u32(b64) { var b = bytesOf(b64); return new Uint32Array(b.buffer, 0, b.length / 4); }

  var N = DATA.distinct;
  var rowCodes = bytesOf(DATA.codes);              // [N * 40], setup by setup
  var codes = new Uint8Array(N * SQUARES);         // square by square: codes[sq * N + s]
  for (var s0 = 0; s0 < N; s0++) {
    for (var q0 = 0; q0 < SQUARES; q0++) { codes[q0 * N + s0] = rowCodes[s0 * SQUARES + q0]; }
  }
  var counts = u32(DATA.counts), wins = u32(DATA.wins), draws = u32(DATA.draws);
  var losses = u32(DATA.losses), clusters = u32(DATA.clusters);
  var rowStarts = u32(DATA.rowStarts), rows = u32(DATA.rows);
  var GAMES = DATA.games, CLUSTERS = 0;
  for (var c0 = 0; c0 < N; c0++) { if (clusters[c0] + 1 > CLUSTERS) { CLUSTERS = clusters[c0] + 1; } }
  var MIRROR = [];
  for (var m = 0; m < SQUARES; m++) { MIRROR.push(Math.floor(m / 10) * 10 + 9 - (m % 10)); }

  // ---- patterns: the grammar of strat_tools/setups/patterns.py, from its own tables -------
  // A line-by-line port of Pattern.parse, driven by PATTERN_GRAMMAR (CONFIG.grammar): the
  // page accepts and refuses what `search --pattern` does (tests/test_explorer_browser.py
  // runs one table of patterns through both). Lookups are Maps: no prototype keys.
  var G = CONFIG.grammar;
  var SYMBOL_BYTE = new Map(Object.keys(G.symbols).map(function (k) { return [k, G.symbols[k]]; }));
  var NAME_BYTE = new Map(Object.keys(G.names).map(function (k) { return [k, G.names[k]]; }));
  var SPACE = new Set(Array.from(G.spaces));
  function isSpace(ch) { return SPACE.has(ch); }
  function strip(text) {           // str.strip(), by code points
    var chars = Array.from(text), a = 0, b = chars.length;
    while (a < b && isSpace(chars[a])) { a++; }
    while (b > a && isSpace(chars[b - 1])) { b--; }
    return chars.slice(a, b).join("");
  }
  function hasSpace(text) { return Array.from(text).some(isSpace); }
  function splitSpace(text) {      // str.split()
    var out = [], word = "";
    Array.from(text).forEach(function (ch) {
      if (isSpace(ch)) { if (word) { out.push(word); } word = ""; } else { word += ch; }
    });
    if (word) { out.push(word); }
    return out;
  }
  function lower(text) { return text.toLowerCase(); }
  function upper(text) { return text.toUpperCase(); }
  function quoted(text) { return "'" + text + "'"; }
  function countOf(text, ch) { return text.split(ch).length - 1; }
  function PatternError(message) { this.message = message; }

  function tokenMask(token) {
    var text = lower(strip(token));
    if (!text) { throw new PatternError("an empty square: write . for anything"); }
    if (text.charAt(0) === "!") {
      var rest = strip(token).slice(1);
      if (!rest) {
        throw new PatternError("'!' must stand before a square's piece or set (!B: not a bomb, " +
          "[!FB]: neither flag nor bomb)");
      }
      if (rest.charAt(0) === "!") { throw new PatternError(quoted(token) + ": negate a square once (!B: not a bomb)"); }
      return G.all & ~tokenMask(rest);
    }
    if (Array.from(text).length === 1 && G.wildcards.indexOf(text) >= 0) { return G.all; }
    if (text.charAt(0) === "[") { return setOfMask(strip(token)); }
    if (text.indexOf("[") >= 0 || text.indexOf("]") >= 0) {
      throw new PatternError(quoted(token) + ": a set is written [..] around its pieces, e.g. [B3]");
    }
    var code = SYMBOL_BYTE.has(upper(text)) ? SYMBOL_BYTE.get(upper(text)) : NAME_BYTE.get(text);
    if (code === undefined) { throw new PatternError("unknown square " + quoted(token) + ": " + G.pieceHelp); }
    return 1 << code;
  }

  function setOfMask(token) {
    var text = token;
    if (text.charAt(text.length - 1) !== "]" || countOf(text, "]") !== 1 || countOf(text, "[") !== 1) {
      throw new PatternError(quoted(token) + ": a set opens with [ and closes with one ], e.g. [B3]");
    }
    var inner = strip(text.slice(1, -1)), negated = inner.charAt(0) === "!";
    if (negated) { inner = strip(inner.slice(1)); }
    if (inner.indexOf("!") >= 0) {
      throw new PatternError(quoted(token) + ": '!' may only open a set, and negates all of it " +
        "([!FB]: neither flag nor bomb)");
    }
    if (!inner) { throw new PatternError(quoted(token) + ": an empty set allows nothing"); }
    var parts;
    if (inner.indexOf(",") >= 0 || NAME_BYTE.has(lower(inner)) || inner === "10") {
      parts = inner.split(",").map(strip);
    } else {
      parts = Array.from(inner).filter(function (ch) { return !isSpace(ch); });
    }
    if (!parts.every(Boolean)) { throw new PatternError(quoted(token) + ": an empty name between commas"); }
    var mask = 0;
    parts.forEach(function (part) {
      try { mask |= tokenMask(part); } catch (err) {
        if (err instanceof PatternError) { throw new PatternError("in the set " + quoted(token) + ": " + err.message); }
        throw err;
      }
    });
    return negated ? G.all & ~mask : mask;
  }

  function rowTokens(row, at) {
    var text = strip(row);
    if (!text) { throw new PatternError("row " + at + " of the pattern is empty"); }
    // Spaces inside a set do not split it: "[bomb, miner]" is one square.
    text = text.replace(/\[[^\[\]]*\]/g, function (set) {
      return Array.from(set).filter(function (ch) { return !isSpace(ch); }).join("");
    });
    if (hasSpace(text)) { return splitSpace(text); }
    var chars = Array.from(text), tokens = [], i = 0;
    while (i < chars.length) {
      var start = i;
      while (i < chars.length && chars[i] === "!") { i++; }
      if (i < chars.length && chars[i] === "[") {
        var close = chars.indexOf("]", i);
        if (close < 0) { throw new PatternError("row " + at + ": a set opened with [ is not closed with ]"); }
        i = close + 1;
      } else if (i < chars.length) { i++; }
      tokens.push(chars.slice(start, i).join(""));
    }
    return tokens;
  }

  function splitRows(text) { return strip(text).split(/[\/\n]/).filter(function (r) { return strip(r); }); }

  function parsePattern(text) {
    var lines = splitRows(text);
    if (lines.length !== 4) {
      throw new PatternError("a pattern has 4 rows (front row first, back row last), got " + lines.length);
    }
    var masks = new Array(SQUARES).fill(0);
    lines.forEach(function (line, at) {
      var tokens = rowTokens(line, at + 1);
      if (tokens.length !== 10) {
        throw new PatternError("row " + (at + 1) + " of the pattern has " + tokens.length + " squares, not 10");
      }
      tokens.forEach(function (token, col) {
        try { masks[(3 - at) * 10 + col] = tokenMask(token); } catch (err) {
          if (err instanceof PatternError) {
            throw new PatternError("row " + (at + 1) + ", square " + (col + 1) + ": " + err.message);
          }
          throw err;
        }
      });
    });
    if (masks.some(function (mask) { return !mask; })) {
      throw new PatternError("the pattern allows nothing on some square");
    }
    return masks;
  }

  function bitsOf(mask) {
    var out = [];
    for (var c = 0; c < KINDS; c++) { if (mask >> c & 1) { out.push(c); } }
    return out;
  }
  function symbolsOf(list) { return list.map(function (c) { return SYMBOLS[c]; }).join(""); }

  function maskText(mask) {
    if (mask === ALL) { return "."; }
    var allowed = bitsOf(mask), banned = bitsOf(ALL & ~mask);
    if (allowed.length === 1) { return SYMBOLS[allowed[0]]; }
    if (banned.length === 1) { return "!" + SYMBOLS[banned[0]]; }
    if (banned.length < allowed.length) { return "[!" + symbolsOf(banned) + "]"; }
    return "[" + symbolsOf(allowed) + "]";
  }

  function patternText(masks) {
    var lines = [];
    for (var row = 3; row >= 0; row--) {
      var line = "";
      for (var col = 0; col < 10; col++) { line += maskText(masks[row * 10 + col]); }
      lines.push(line);
    }
    return lines.join("/");
  }

  function impossible(masks) {
    var army = DATA.army;
    if (!army) { return ""; }
    var full = army.reduce(function (a, b) { return a + b; }, 0) === SQUARES;
    var pieceBits = ALL & ~1 & ~(1 << CONFIG.other), forced = {};
    for (var sq = 0; sq < SQUARES; sq++) {
      var allowed = masks[sq] & (full ? pieceBits : pieceBits | 1);
      if (!allowed) {
        return full ? "a " + DATA.variant + " army fills all 40 squares: no empty square" :
          "nothing the pattern allows on some square stands in a " + DATA.variant + " setup";
      }
      if ((allowed & (allowed - 1)) === 0 && allowed !== 1) {
        var kind = bitsOf(allowed)[0];
        forced[kind] = (forced[kind] || 0) + 1;
      }
    }
    for (var kindText in forced) {
      var kindCode = Number(kindText);
      if (forced[kindCode] > army[kindCode - 1]) {
        return "the pattern needs " + forced[kindCode] + " " + NAMES[kindCode] + "s; a " +
          DATA.variant + " army has " + army[kindCode - 1];
      }
    }
    return "";
  }

  // ---- matching and counting (typed arrays, one pass a constrained square) ----------
  // hit[s]: 1 when setup s matches the pattern as played, 2 when only its mirror image does.
  function matchInto(masks, hit, mark) {
    var alive = new Uint8Array(N).fill(1);
    for (var sq = 0; sq < SQUARES; sq++) {
      var mask = masks[sq];
      if (mask === ALL) { continue; }
      var base = sq * N;
      for (var s = 0; s < N; s++) {
        if (alive[s] && !(mask >> codes[base + s] & 1)) { alive[s] = 0; }
      }
    }
    for (var t = 0; t < N; t++) { if (alive[t] && !hit[t]) { hit[t] = mark; } }
  }

  function matches(masks, mirror) {
    var hit = new Uint8Array(N);
    matchInto(masks, hit, 1);
    if (mirror) { matchInto(masks.map(function (_, sq) { return masks[MIRROR[sq]]; }), hit, 2); }
    return hit;
  }

  // Square sq of setup s as the pattern sees it: a mirror-image match is drawn mirrored,
  // in the pattern's orientation.
  function codeAt(s, sq, hit) { return rowCodes[s * SQUARES + (hit === 2 ? MIRROR[sq] : sq)]; }

  var T975 = CONFIG.t975;
  function tQuantile(df) {
    var z = 1.96;
    if (!(df >= 1)) { return z; }
    if (df <= 30) { return T975[Math.floor(df)]; }
    return z + (z * z * z + z) / (4 * df) +
      (5 * Math.pow(z, 5) + 16 * Math.pow(z, 3) + 3 * z) / (96 * df * df) +
      (3 * Math.pow(z, 7) + 19 * Math.pow(z, 5) + 17 * Math.pow(z, 3) - 15 * z) / (384 * df * df * df);
  }
  function wilson(k, n, z) {
    if (!(n > 0)) { return [NaN, NaN]; }
    var p = Math.min(1, Math.max(0, k / n)), z2 = z * z;
    var centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    var half = z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
    return [Math.max(0, centre - half), Math.min(1, centre + half)];
  }

  // One group's counts; n/y per cluster of its decided setups -> both intervals
  // (strat_tools/stats/intervals.py: the sandwich variance, n_eff, t at G - 1).
  function summarise(group, n, y) {
    var bigN = 0, bigY = 0, g = 0, y2 = 0, yn = 0, n2 = 0;
    for (var c = 0; c < CLUSTERS; c++) {
      var nc = n[c];
      if (nc > 0) { g++; bigN += nc; bigY += y[c]; y2 += y[c] * y[c]; yn += y[c] * nc; n2 += nc * nc; }
    }
    var p = bigY / bigN, plain = wilson(bigY, bigN, 1.96);
    var nEff = g;
    if (g > 1 && p > 0 && p < 1) {
      var spread = Math.max(y2 - 2 * p * yn + p * p * n2, 0);
      var variance = g / (g - 1) * spread / (bigN * bigN);
      nEff = variance > 0 ? Math.min(p * (1 - p) / variance, bigN) : bigN;
    }
    var clustered = wilson(p * nEff, nEff, tQuantile(g - 1));
    group.decided = bigN; group.rate = bigN > 0 ? p : NaN;
    group.ci = plain; group.cci = clustered; group.clusters = g;
    return group;
  }

  function count(hit) {
    var groups = [0, 1].map(function () {
      return { setups: 0, distinct: 0, games: 0, wins: 0, draws: 0, losses: 0,
        n: new Float64Array(CLUSTERS), y: new Float64Array(CLUSTERS), seen: new Uint8Array(GAMES.length) };
    });
    var heat = new Float64Array(SQUARES * KINDS), mirrored = 0;
    for (var s = 0; s < N; s++) {
      var grp = groups[hit[s] ? 0 : 1], w = counts[s];
      grp.setups += w; grp.distinct += 1;
      grp.wins += wins[s]; grp.draws += draws[s]; grp.losses += losses[s];
      grp.n[clusters[s]] += wins[s] + losses[s]; grp.y[clusters[s]] += wins[s];
      for (var r = rowStarts[s]; r < rowStarts[s + 1]; r++) {
        var game = rows[r] >>> 3;
        if (!grp.seen[game]) { grp.seen[game] = 1; grp.games++; }
      }
      if (hit[s]) {
        if (hit[s] === 2) { mirrored += w; }
        for (var sq = 0; sq < SQUARES; sq++) { heat[sq * KINDS + codeAt(s, sq, hit[s])] += w; }
      }
    }
    groups.forEach(function (grp) { summarise(grp, grp.n, grp.y); });
    return { matching: groups[0], rest: groups[1], heat: heat, mirrored: mirrored };
  }

  function twoProportionZ(k1, n1, k2, n2) {
    if (n1 <= 0 || n2 <= 0) { return NaN; }
    var pooled = (k1 + k2) / (n1 + n2);
    if (pooled === 0 || pooled === 1) { return NaN; }
    return (k1 / n1 - k2 / n2) / Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  }

  // ---- state, URL and drawing --------------------------------------------------------
  var state = { masks: new Array(SQUARES).fill(ALL), mirror: false, selected: -1, heat: "top" };
  var board = $("board"), cells = [];

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }
  function pct(x) { return isNaN(x) ? "n/a" : (100 * x).toFixed(1); }
  function interval(pair) { return isNaN(pair[0]) ? "n/a" : "[" + pct(pair[0]) + ", " + pct(pair[1]) + "]"; }
  function num(x) { return x.toLocaleString("en-US"); }

  function buildBoard() {
    board.appendChild(el("div", "label", ""));
    for (var c = 1; c <= 10; c++) { board.appendChild(el("div", "label", String(c))); }
    for (var row = 3; row >= 0; row--) {
      board.appendChild(el("div", "label", String(row + 1) + (row === 3 ? " front" : row === 0 ? " back" : "")));
      for (var col = 0; col < 10; col++) {
        var sq = row * 10 + col, cell = el("button", "sq");
        cell.type = "button";
        cell.dataset.square = String(sq);
        cell.dataset.row = String(row + 1);
        cell.dataset.col = String(col + 1);
        cell.setAttribute("role", "gridcell");
        cell.appendChild(el("span", "tok", ""));
        cell.appendChild(el("span", "heat", ""));
        cell.addEventListener("click", select.bind(null, sq));
        cell.addEventListener("keydown", squareKey.bind(null, sq));
        board.appendChild(cell);
        cells[sq] = cell;
      }
    }
  }

  function buildPalette() {
    var box = $("palette-pieces");
    var army = DATA.army, filled = army && army.reduce(function (a, b) { return a + b; }, 0) === SQUARES;
    // Barrage, duell and ultimate lightning leave squares empty: "_" asks for one.
    var choices = filled ? PIECES : PIECES.concat([0]);
    choices.forEach(function (code) {
      var button = el("button", "", SYMBOLS[code]);
      button.type = "button";
      button.dataset.piece = SYMBOLS[code];
      button.appendChild(el("small", "", NAMES[code]));
      button.title = NAMES[code] + " (Shift-click: add to a set)";
      button.addEventListener("click", function (event) {
        choose(code, event.shiftKey || $("multi").checked);
      });
      box.appendChild(button);
    });
    $("any").addEventListener("click", function () { setMask(ALL); });
    $("negate").addEventListener("change", function () {
      if (state.selected < 0) { return; }
      var mask = state.masks[state.selected];
      if (mask !== ALL) { setMask(ALL & ~mask); }
    });
    var heat = $("heat-piece");
    heat.appendChild(new Option("most likely piece", "top"));
    choices.forEach(function (code) { heat.appendChild(new Option(NAMES[code], String(code))); });
    heat.addEventListener("change", function () { state.heat = heat.value; render(); });
    $("mirror").addEventListener("change", function () { state.mirror = $("mirror").checked; update(); });
    $("clear").addEventListener("click", function () { state.masks = new Array(SQUARES).fill(ALL); update(); });
    $("pattern-form").addEventListener("submit", function (event) {
      event.preventDefault();
      try {
        state.masks = parsePattern($("pattern-text").value);
        $("pattern-error").textContent = "";
        update();
      } catch (err) { $("pattern-error").textContent = err.message; }
    });
  }

  function negated(mask) { return mask !== ALL && bitsOf(ALL & ~mask).length < bitsOf(mask).length; }

  function chosenOf(mask, neg) { return mask === ALL ? 0 : neg ? ALL & ~mask : mask; }

  function choose(code, several) {
    if (state.selected < 0) { return; }
    var neg = $("negate").checked, current = chosenOf(state.masks[state.selected], neg);
    // A plain click requires that piece (again: frees the square); Shift adds or removes it.
    var next = several ? current ^ (1 << code) : current === (1 << code) ? 0 : 1 << code;
    setMask(!next ? ALL : neg ? ALL & ~next : next);
  }

  function setMask(mask) {
    if (state.selected < 0) { return; }
    state.masks[state.selected] = mask;
    update();
  }

  function select(sq) {
    state.selected = sq;
    var mask = state.masks[sq];
    $("negate").checked = negated(mask);
    render();
    cells[sq].focus();
  }

  function squareKey(sq, event) {
    var key = event.key, row = Math.floor(sq / 10), col = sq % 10;
    var moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [1, 0], ArrowDown: [-1, 0] };
    if (moves[key]) {
      var r = Math.min(3, Math.max(0, row + moves[key][0])), c = Math.min(9, Math.max(0, col + moves[key][1]));
      select(r * 10 + c);
      event.preventDefault();
      return;
    }
    if (state.selected !== sq) { state.selected = sq; }
    if (key === "." || key === "Delete" || key === "Backspace") { setMask(ALL); event.preventDefault(); return; }
    if (key === "!") {
      var mask = state.masks[sq];
      if (mask !== ALL) { setMask(ALL & ~mask); }
      $("negate").checked = negated(state.masks[sq]);
      event.preventDefault();
      return;
    }
    if (key === "Escape") { state.selected = -1; render(); return; }
    // Shift+2 types "@" on many keyboards: read digits and letters from the key's place.
    var typed = /^(Digit|Key)./.test(event.code || "") ? event.code.slice(-1) : key;
    var code = key.length === 1 ? SYMBOL_BYTE.get(typed.toUpperCase()) : undefined;
    if (code !== undefined && code > 0 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      $("negate").checked = negated(state.masks[sq]);
      choose(code, event.shiftKey);
      event.preventDefault();
    }
  }

  var result = null;

  function writeHash() {
    var text = patternText(state.masks);
    var hash = "#pattern=" + encodeURIComponent(text).replace(/%2F/g, "/").replace(/%5B/g, "[")
      .replace(/%5D/g, "]") + (state.mirror ? "&mirror=1" : "");
    if (location.hash !== hash) { history.replaceState(null, "", hash); }
  }

  function readHash() {
    var params = Object.create(null);  // a key from the URL is data, never a prototype's
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var at = part.indexOf("=");
      if (at > 0) {
        try { params[part.slice(0, at)] = decodeURIComponent(part.slice(at + 1)); } catch (err) { /* ignored */ }
      }
    });
    state.mirror = params.mirror === "1";
    state.masks = new Array(SQUARES).fill(ALL);
    $("pattern-error").textContent = "";
    if (params.pattern !== undefined) {
      try { state.masks = parsePattern(params.pattern); } catch (err) {
        $("pattern-error").textContent = "The link's pattern cannot be read: " + err.message;
      }
    }
  }

  function update() {
    var started = performance.now();
    var hit = matches(state.masks, state.mirror);
    result = count(hit);
    result.hit = hit;
    result.ms = performance.now() - started;
    writeHash();
    render();
  }

  function renderSquares() {
    var heat = result.heat, total = result.matching.setups;
    cells.forEach(function (cell, sq) {
      var mask = state.masks[sq], tok = cell.firstChild, label = cell.lastChild;
      cell.classList.toggle("selected", sq === state.selected);
      cell.classList.toggle("fixed", mask !== ALL);
      cell.classList.toggle("neg", negated(mask));
      cell.dataset.token = maskText(mask);
      cell.style.background = "";
      tok.textContent = mask === ALL ? "" : maskText(mask);
      label.textContent = "";
      var best = -1, share = 0;
      if (total > 0) {
        if (state.heat === "top") {
          for (var c = 0; c < KINDS; c++) {
            if (heat[sq * KINDS + c] / total > share) { share = heat[sq * KINDS + c] / total; best = c; }
          }
        } else {
          best = Number(state.heat);
          share = heat[sq * KINDS + best] / total;
        }
      }
      var title = "row " + (sq / 10 + 1 | 0) + ", column " + (sq % 10 + 1) + ": " +
        (mask === ALL ? "anything" : maskText(mask));
      if (best >= 0 && (mask === ALL || state.heat !== "top")) {
        title += "; " + NAMES[best] + " in " + pct(share) + "% of the matches";
        if (mask === ALL) {
          var shade = Math.round(255 - 150 * share);
          cell.style.background = "rgb(255," + shade + "," + Math.round(shade * 0.75) + ")";
          if (state.heat === "top") { tok.textContent = SYMBOLS[best]; }
          label.textContent = (state.heat === "top" ? "" : SYMBOLS[best] + " ") + Math.round(100 * share) + "%";
        }
      }
      cell.title = title;
      cell.setAttribute("aria-label", title);
    });
    var sel = state.selected;
    $("palette-title").textContent = sel < 0 ? "Click a square to set what it must hold" :
      "Row " + (sel / 10 + 1 | 0) + (sel >= 30 ? " (front)" : sel < 10 ? " (back)" : "") +
      ", column " + (sel % 10 + 1) + ": " + (state.masks[sel] === ALL ? "anything" : maskText(state.masks[sel]));
    var selMask = sel < 0 ? ALL : state.masks[sel], neg = negated(selMask);
    Array.prototype.forEach.call($("palette-pieces").children, function (button) {
      var code = SYMBOL_BYTE.get(button.dataset.piece);
      var on = selMask !== ALL && (neg ? !(selMask >> code & 1) : !!(selMask >> code & 1));
      button.classList.toggle("on", on);
      button.classList.toggle("neg", on && neg);
      button.disabled = sel < 0;
    });
  }

  function summaryRow(name, grp) {
    var tr = el("tr");
    [name, num(grp.setups), num(grp.distinct), num(grp.games), num(grp.wins) + "/" + num(grp.draws) + "/" + num(grp.losses), pct(grp.rate) + (isNaN(grp.rate) ? "" : "%"), interval(grp.ci),
      interval(grp.cci)].forEach(function (text) { tr.appendChild(el("td", "", text)); });
    return tr;
  }

  function miniBoard(s, hit) {
    var lines = [];
    for (var row = 3; row >= 0; row--) {
      var parts = [];
      for (var col = 0; col < 10; col++) { parts.push(SYMBOLS[codeAt(s, row * 10 + col, hit)]); }
      lines.push(parts.join(" "));
    }
    return lines.join("\n");
  }

  var shellWord = StratShellWord;  // shell.js

  function gameLinks(s, box, limit) {
    box.textContent = "";
    var end = rowStarts[s + 1], shown = 0;
    for (var r = rowStarts[s]; r < end && (!limit || shown < limit); r++, shown++) {
      var word = rows[r], id = GAMES[word >>> 3], side = word >> 2 & 1 ? "blue" : "red";
      var outcome = ["won", "drawn", "lost", "no result"][word & 3];
      var link = el("a", "", id);
      link.href = CONFIG.viewer + "#ply=0&game=" + encodeURIComponent(id) + "&view=" + side;
      link.rel = "noopener";
      link.title = side + ", " + outcome + " (" + CONFIG.build + " --game " + shellWord(id) + ")";
      link.dataset.game = id;
      box.appendChild(link);
    }
    if (end - rowStarts[s] > shown) {
      var more = el("button", "", "all " + num(end - rowStarts[s]) + " games");
      more.type = "button";
      more.addEventListener("click", function () { gameLinks(s, box, 0); });
      box.appendChild(more);
    }
  }

  function renderResults() {
    var mt = result.matching, rest = result.rest, text = patternText(state.masks);
    var box = $("matches");
    box.dataset.count = String(mt.setups);
    box.dataset.distinct = String(mt.distinct);
    box.dataset.games = String(mt.games);
    box.dataset.mirrored = String(result.mirrored);
    box.dataset.pattern = text;
    box.dataset.ms = result.ms.toFixed(2);
    box.textContent = "";
    box.appendChild(el("strong", "", num(mt.setups)));
    box.appendChild(document.createTextNode(" of " + num(DATA.setups) + " " + DATA.variant +
      " setups match (" + num(mt.distinct) + " distinct as drawn, in " + num(mt.games) + " games)" +
      (state.mirror ? ", the pattern or its mirror image: " + num(mt.setups - result.mirrored) +
        " as played, " + num(result.mirrored) + " as its mirror image (drawn in the pattern's " +
        "orientation)" : "") + "; answered in " +
      result.ms.toFixed(1) + " ms"));
    var why = impossible(state.masks);
    if (why) { box.appendChild(el("div", "note", "The pattern can never match: " + why)); }
    var body = $("summary").tBodies[0];
    body.textContent = "";
    body.appendChild(summaryRow("matching", mt));
    body.appendChild(summaryRow("the rest", rest));
    var z = twoProportionZ(mt.wins, mt.decided, rest.wins, rest.decided);
    $("verdict").textContent = "Win rates of decided games, the setup owner's view. z (matching " +
      "against the rest) " + (isNaN(z) ? "n/a" : z.toFixed(2)) + ". The clustered interval counts " +
      "all games of a setup (and its mirror image) as one cluster: one player may play a setup " +
      "hundreds of times.";
    var list = $("top-setups");
    list.textContent = "";
    var listed = 0;
    for (var s = 0; s < N && listed < 10; s++) {
      if (!result.hit[s]) { continue; }
      listed++;
      var item = el("li");
      var decided = wins[s] + losses[s];
      var meta = el("div", "meta");
      meta.appendChild(el("span", "fp", DATA.fingerprints.substr(s * 16, 16)));
      meta.appendChild(document.createTextNode(": " + num(counts[s]) + (counts[s] === 1 ? " setup, " : " setups, ") + wins[s] + " won, " +
        draws[s] + " drawn, " + losses[s] + " lost" +
        (decided ? "; win rate " + pct(wins[s] / decided) + "% " + interval(wilson(wins[s], decided, 1.96)) : "")));
      if (result.hit[s] === 2) {
        item.dataset.mirror = "1";
        meta.appendChild(document.createTextNode(" (matched as its mirror image: drawn mirrored)"));
      }
      item.appendChild(meta);
      item.appendChild(el("div", "mini", miniBoard(s, result.hit[s])));
      var games = el("div", "games");
      gameLinks(s, games, 12);
      item.appendChild(games);
      list.appendChild(item);
    }
    if (!listed) { list.appendChild(el("li", "", "no setup matches")); }
    var input = $("pattern-text");
    if (document.activeElement !== input || !$("pattern-error").textContent) { input.value = text; }
  }

  function render() {
    if (!result) { return; }
    renderSquares();
    renderResults();
  }

  $("viewer-build").textContent = CONFIG.build + " -o " + shellWord(CONFIG.viewer);
  $("viewer-name").textContent = CONFIG.viewer;
  $("viewer-max").textContent = num(CONFIG.viewerGames);
  $("source").textContent = (DATA.source ? DATA.source + " \u00B7 " : "") + num(DATA.setups) + " " +
    DATA.variant + " setups, " + num(N) + " distinct as drawn, " + num(GAMES.length) + " games";
  buildBoard();
  buildPalette();
  readHash();
  $("mirror").checked = state.mirror;
  update();
  window.addEventListener("hashchange", function () {
    readHash();
    $("mirror").checked = state.mirror;
    update();
  });
}());
