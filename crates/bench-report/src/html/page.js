"use strict";
// Sortable tables: a click on a column's head sorts the rows by it; figures sort as numbers
// (thousands separators stripped, the first number in the cell), with cells that hold none
// ("invalid", "—", "n/a") last; text sorts alphabetically. A second click reverses.
(function () {
  function number(cell) {
    var m = cell.textContent.replace(/,/g, "").match(/-?\d+(?:\.\d+)?/);
    return m ? parseFloat(m[0]) : null;
  }
  function sortBy(table, th, col) {
    var numeric = th.classList.contains("num");
    var first = numeric ? "descending" : "ascending";
    var state = th.getAttribute("aria-sort");
    var dir = state === first ? (first === "ascending" ? "descending" : "ascending") : first;
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var sign = dir === "ascending" ? 1 : -1;
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col], y = b.cells[col];
      if (!x || !y) { return 0; }
      if (numeric) {
        var p = number(x), q = number(y);
        if (p === null || q === null) { return (p === null) - (q === null); }
        return sign * (p - q);
      }
      return sign * x.textContent.localeCompare(y.textContent);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    table.classList.add("sorted");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var button = th.querySelector("button");
      if (button) { button.addEventListener("click", function () { sortBy(table, th, col); }); }
    });
  });
})();
