"use strict";
// Sortable tables: a click on a column's head sorts the rows by it; figures sort as numbers
// (a cell's `data-v`, else the number it starts with, a bound `≥ 61,200` by its value,
// thousands separators stripped), with cells that hold none ("invalid", "—", "n/a") last;
// text sorts alphabetically. A second click reverses.
(function () {
  function number(cell) {
    if (cell.dataset.v !== undefined) { return parseFloat(cell.dataset.v); }
    var m = cell.textContent.trim().replace(/,/g, "").match(/^[≥≤<>~≈]?\s*(-?\d+(?:\.\d+)?)/);
    return m ? parseFloat(m[1]) : null;
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
  // A table wider than its box says so: a hint above it and a shade at its right edge, gone
  // once scrolled to the end.
  var boxes = Array.prototype.slice.call(document.querySelectorAll(".tbl"));
  function hint(box) {
    var s = box.querySelector(".scroll");
    if (!s) { return; }
    box.classList.toggle("more", s.scrollWidth > s.clientWidth + 1);
    box.classList.toggle("at-end", s.scrollLeft + s.clientWidth >= s.scrollWidth - 1);
  }
  boxes.forEach(function (box) {
    var s = box.querySelector(".scroll");
    if (s) { s.addEventListener("scroll", function () { hint(box); }, { passive: true }); }
    hint(box);
  });
  window.addEventListener("resize", function () { boxes.forEach(hint); });
  // A finding's figure leads to the table cell it is read from.
  Array.prototype.forEach.call(document.querySelectorAll("#findings span.fig"), function (span) {
    var from = span.closest("li") && span.closest("li").querySelector("a.from");
    var run = from && document.getElementById(from.getAttribute("href").slice(1));
    var cell = run && Array.prototype.find.call(run.querySelectorAll("td[data-fig]"), function (td) {
      return td.dataset.fig === span.dataset.fig;
    });
    if (!cell) { return; }
    span.title = "its table cell: click to see it";
    span.addEventListener("click", function () {
      var d = cell.closest("details");
      if (d) { d.open = true; }
      cell.scrollIntoView({ block: "center", inline: "nearest" });
      cell.classList.add("found");
      setTimeout(function () { cell.classList.remove("found"); }, 2000);
    });
  });
})();
