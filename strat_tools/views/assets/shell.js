// A word the shell reads as itself, for the commands the pages name (explorer and viewer):
// as is when plain, else in single quotes (Python's shlex.quote, the same safe characters).
var StratShellWord = function (text) {
  "use strict";
  return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\"'\"'") + "'";
};
