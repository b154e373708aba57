// The checks the browser tests run in the page, each returning what is wrong (an empty list
// when nothing is): installed as `window.checks` by `tests/browser.rs`.
(function () {
  "use strict";
  var all = function (q, root) { return Array.prototype.slice.call((root || document).querySelectorAll(q)); };
  // The charts on screen: the layout that fits the window (the other is display:none).
  function charts() {
    return all("svg.chart, svg.headline-chart").filter(function (s) { return s.getBoundingClientRect().width > 0; });
  }
  function name(svg) {
    var f = svg.closest("article, .finding");
    return (f ? (f.id || f.querySelector("h3").textContent.slice(0, 30)) + " " : "") + svg.getAttribute("aria-label") + " [" + svg.getAttribute("class") + "]";
  }
  function texts(svg) {
    return all("text", svg).map(function (t) { return [t, t.getBoundingClientRect()]; }).filter(function (p) { return p[1].width > 0; });
  }
  window.checks = {
    // Every text of a chart on screen within the window, and no page wider than its window.
    overflow: function () {
      var w = document.documentElement.clientWidth, out = [];
      charts().forEach(function (svg) {
        texts(svg).forEach(function (p) {
          if (p[1].left < -0.5 || p[1].right > w + 0.5) {
            out.push(name(svg) + ": " + JSON.stringify(p[0].textContent) + " at " + Math.round(p[1].left) + "–" + Math.round(p[1].right) + " of " + w);
          }
        });
      });
      var sw = document.documentElement.scrollWidth;
      if (sw > w + 1) { out.push("the page scrolls sideways: " + sw + " px in a window of " + w); }
      return out;
    },
    // No two texts of a chart overlap (by more than a pixel each way).
    overlaps: function () {
      var out = [];
      charts().forEach(function (svg) {
        var ts = texts(svg);
        for (var i = 0; i < ts.length; i++) {
          for (var j = i + 1; j < ts.length; j++) {
            var a = ts[i][1], b = ts[j][1];
            var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (w > 1 && h > 1) {
              out.push(name(svg) + ": " + JSON.stringify(ts[i][0].textContent) + " over " + JSON.stringify(ts[j][0].textContent));
            }
          }
        }
      });
      return out;
    },
    // Every text of a chart on screen at least `min` px tall as drawn.
    small: function (min) {
      var out = [];
      charts().forEach(function (svg) {
        var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        texts(svg).forEach(function (p) {
          var px = parseFloat(getComputedStyle(p[0]).fontSize) * scale;
          if (px < min - 0.05) { out.push(name(svg) + ": " + JSON.stringify(p[0].textContent) + " " + px.toFixed(1) + " px"); }
        });
      });
      return out;
    },
    // Every figure of a finding is its table cell's figure: the cell of its key in the run
    // the finding links to, the same number as written there.
    figures: function () {
      var lead = function (t) {
        var m = t.replace(/\s+/g, " ").trim().match(/^[≥≤]?\s*(-?[\d,]+(?:\.\d+)?)/);
        return m ? m[1] : null;
      };
      var out = [], n = 0;
      all("#findings span.fig").forEach(function (span) {
        n++;
        var from = span.closest("li").querySelector("a.from");
        var run = from && document.getElementById(from.getAttribute("href").slice(1));
        var cell = run && all("td[data-fig]", run).filter(function (td) { return td.dataset.fig === span.dataset.fig; })[0];
        if (!cell) { out.push("no cell " + span.dataset.fig + " for " + span.textContent); return; }
        var a = lead(span.textContent), b = lead(cell.textContent);
        if (a === null || a !== b) { out.push(span.dataset.fig + ": the finding says " + JSON.stringify(span.textContent) + ", its table " + JSON.stringify(cell.textContent)); }
      });
      if (n === 0) { out.push("no figure in any finding"); }
      return out;
    },
    // The header says what the page is from: its commit(s) and when.
    header: function (commit, date) {
      var out = [];
      var about = document.querySelector("header #about");
      if (!about) { return ["no #about in the header"]; }
      var get = function (c) { var d = about.querySelector("." + c + " dd"); return d ? d.textContent : ""; };
      if (get("commit").indexOf(commit) < 0) { out.push("no commit " + commit + " in " + JSON.stringify(get("commit"))); }
      if (get("when").indexOf(date) < 0) { out.push("no date " + date + " in " + JSON.stringify(get("when"))); }
      ["machine", "kernel", "rounds", "disturbed", "since"].forEach(function (c) { if (!get(c)) { out.push("no " + c); } });
      var key = document.querySelector("header #key");
      if (!key) { out.push("no key"); } else {
        ["†", "‡", "§", "≥", "[a–b]", "[a–b; 3 rounds, 75 %]"].forEach(function (m) {
          if (all("dt", key).every(function (dt) { return dt.textContent.indexOf(m) < 0; })) { out.push("the key lacks " + m); }
        });
      }
      if (!document.querySelector("header .absolute")) { out.push("no word on the absolute figures"); }
      return out;
    },
    // A narrow chart shows first the panel a finding reads.
    cited: function () {
      var out = [];
      charts().filter(function (s) { return s.classList.contains("narrow"); }).forEach(function (svg) {
        var panels = all("text.panel", svg).map(function (t) { return t.textContent; });
        var cited = panels.some(function (t) { return t.indexOf("(a finding's)") >= 0; });
        if (cited && panels[0].indexOf("(a finding's)") < 0) { out.push(name(svg) + ": first " + panels[0]); }
      });
      return out;
    },
    // A table wider than its box says so, and keeps its first column while the rest scrolls.
    tables: function () {
      var out = [], wide = 0;
      all(".tbl").forEach(function (box) {
        var s = box.querySelector(".scroll");
        if (!s || s.getBoundingClientRect().width === 0 || s.scrollWidth <= s.clientWidth + 1) { return; }
        wide++;
        var what = (box.closest("article, section") || {}).id + " " + box.querySelector("th").textContent;
        var hint = getComputedStyle(box, "::before").content;
        if (!box.classList.contains("more") || hint === "none" || hint === "") { out.push(what + ": no hint"); }
        var first = box.querySelector("tbody td");
        var left = s.getBoundingClientRect().left;
        s.scrollLeft = Math.min(200, s.scrollWidth - s.clientWidth);
        var moved = first.getBoundingClientRect().left - left;
        var scrolled = s.scrollLeft;
        s.scrollLeft = 0;
        if (scrolled > 0 && Math.abs(moved) > 1) { out.push(what + ": the first column moved " + moved.toFixed(0) + " px"); }
      });
      return [out, wide];
    }
  };
})();
