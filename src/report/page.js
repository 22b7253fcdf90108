"use strict";
(function () {
  var table = document.getElementById("session-table");
  var filter = document.getElementById("filter");
  var shown = document.getElementById("shown");
  if (table && table.tBodies.length) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var heads = table.tHead.rows[0].cells;
    var value = function (row, i, numeric) {
      var t = row.cells[i].textContent;
      if (!numeric) return t.toLowerCase();
      var n = parseFloat(t.replace(/[^0-9.\-]/g, ""));
      return isNaN(n) ? -Infinity : n;
    };
    Array.prototype.forEach.call(heads, function (th, i) {
      th.tabIndex = 0;
      var sort = function () {
        var numeric = th.getAttribute("data-sort") === "num";
        var up = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        rows.sort(function (a, b) {
          var x = value(a, i, numeric), y = value(b, i, numeric);
          return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
    if (filter) {
      filter.addEventListener("input", function () {
        var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
        var n = 0;
        rows.forEach(function (r) {
          var text = r.textContent.toLowerCase();
          var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
          r.classList.toggle("hidden", !hit);
          if (hit) n++;
        });
        if (shown) shown.textContent = n + " of " + rows.length;
      });
    }
  }
  document.documentElement.setAttribute("data-ready", "1");
})();
