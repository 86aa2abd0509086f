// strat-tools game viewer, the models' parts that only compute (no page state): the belief
// rows of every position rebuilt from the page's changes, and how a probability is written.
// viewer.js draws the likely moves, the beliefs and the surprising moves with them.
var StratViewerModels = (function () {
  "use strict";

  // Every position's row of `width` values per square, from the page's changes (the first
  // entry from nothing: [square, value, ...] per changed square).
  function rows(changes, width) {
    var out = [], row = new Int16Array(100 * width), p, i, j, d;
    for (p = 0; p < changes.length; p++) {
      row = row.slice(); d = changes[p];
      for (i = 0; i < d.length; i += 1 + width) {
        for (j = 0; j < width; j++) { row[d[i] * width + j] = d[i + 1 + j]; }
      }
      out.push(row);
    }
    return out;
  }

  // A probability given in 1/scale as a percent: "38%", "2.3%", "0.04%", "<0.01%".
  function percent(value, scale) {
    var p = 100 * value / scale;
    if (value > 0 && p < 0.01) { return "<0.01%"; }
    return (p >= 10 ? p.toFixed(0) : (p >= 1 ? p.toFixed(1) : p.toFixed(2))) + "%";
  }

  function permille(value) { return percent(value, 1000); }

  return { rows: rows, percent: percent, permille: permille };
}());
