  // -- grids of short cells laid out by CSS (a week's calendar, a month of days): as tables for reading
  // A calendar drawn with a CSS grid or with boxes that wrap in rows has no table in its HTML: read as
  // text, its day names, hours and events come one per line and which event falls on which day is
  // lost. The reading copy (visibleCopy in 06_reading.js) gets such a layout as a <table> instead, its
  // cells in the rows and columns the user sees, a marked cell (selected, today) said in its text.
  var GRID_MIN_ROWS = 3, GRID_MIN_COLUMNS = 3, GRID_CELL_MAX_CHARS = 80;
  var GRID_MARKS = [["aria-selected", "selected"], ["aria-current", "today"], ["aria-pressed", "selected"]];
  var GRID_MARK_CLASSES = /(?:^|[\s_-])(selected|today|active|current|highlighted)(?:$|[\s_-])/i;

  // A cell's text on one line (its lines joined with "; "), with the state a calendar marks it by.
  function gridCellText(el) {
    var lines = (el.innerText || "").split("\n").map(function (s) { return s.replace(/\s+/g, " ").trim(); })
      .filter(Boolean);
    var text = lines.join("; ");
    var marks = [];
    var nodes = [el].concat(Array.prototype.slice.call(el.querySelectorAll("*"), 0, 30));
    nodes.forEach(function (n) {
      GRID_MARKS.forEach(function (m) {
        var v = n.getAttribute(m[0]);
        if (v && v !== "false" && marks.indexOf(m[1]) < 0) marks.push(m[1]);
      });
      var cls = typeof n.className === "string" ? n.className : "";
      var hit = cls.match(GRID_MARK_CLASSES);
      if (hit && marks.indexOf(hit[1].toLowerCase()) < 0) marks.push(hit[1].toLowerCase());
    });
    return text && marks.length ? text + " (" + marks.join(", ") + ")" : text;
  }

  // The rows of ``el``'s visible children as the eye sees them (tops within a few pixels form a row),
  // each a list of [column, text], and how many columns; null when they do not make a grid of short cells.
  function gridRows(el) {
    var kids = [];
    for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
      var r = c.getBoundingClientRect();
      var hidden = getComputedStyle(c).display === "none";
      if (!hidden && (r.width > 0 || r.height > 0)) kids.push({ el: c, r: r });
    }
    if (kids.length < GRID_MIN_ROWS * GRID_MIN_COLUMNS || kids.length > 2000) return null;
    var lefts = [], rows = [];
    kids.forEach(function (k) {
      var row = rows.length ? rows[rows.length - 1] : null;
      if (!row || Math.abs(k.r.top - row.top) > 4) { row = { top: k.r.top, cells: [] }; rows.push(row); }
      if (lefts.every(function (x) { return Math.abs(x - k.r.left) > 4; })) lefts.push(k.r.left);
      row.cells.push(k);
    });
    lefts.sort(function (a, b) { return a - b; });
    var full = rows.filter(function (row) { return row.cells.length === lefts.length; }).length;
    // A grid: at least 3 columns and 3 rows, most rows filled (told by the boxes alone, before any
    // text is read), the cells short. Cards with their buttons (a shop's products) are left as they
    // are, but a month of day buttons is a grid.
    if (lefts.length < GRID_MIN_COLUMNS || rows.length < GRID_MIN_ROWS || full < rows.length / 2 ||
        (el.textContent || "").length > kids.length * GRID_CELL_MAX_CHARS * 2) return null;
    var controls = 0, longest = 0;
    kids.forEach(function (k) {
      k.text = gridCellText(k.el);
      longest = Math.max(longest, k.text.length);
      if (k.el.matches("a[href], button, input, select, textarea") ||
          k.el.querySelector("a[href], button, input, select, textarea")) controls++;
    });
    var dayButtons = kids.every(function (k) { return k.text.replace(/ \(.*\)$/, "").length <= 4; });
    if (longest > GRID_CELL_MAX_CHARS || (controls > kids.length / 2 && !dayButtons)) return null;
    return { columns: lefts.length, rows: rows.map(function (row) {
      return row.cells.map(function (k) {
        var col = 0;
        while (col < lefts.length - 1 && Math.abs(lefts[col] - k.r.left) > 4) col++;
        return [col, k.text];
      });
    }) };
  }

  // Whether the live element lays its children out in rows and columns (CSS grid, or wrapping boxes).
  function laysOutGrid(el) {
    var cs = getComputedStyle(el);
    if (cs.display === "grid" || cs.display === "inline-grid") return true;
    return (cs.display === "flex" || cs.display === "inline-flex") && cs.flexWrap === "wrap" &&
           cs.flexDirection.indexOf("row") === 0;
  }

  // The <table> for ``live``'s grid in the reading copy's document, or null (no grid of short cells).
  function gridTable(live, owner) {
    if (!laysOutGrid(live)) return null;
    var grid = gridRows(live);
    if (!grid) return null;
    var table = owner.createElement("table");
    grid.rows.forEach(function (cells, i) {
      var tr = owner.createElement("tr");
      var texts = [];
      for (var col = 0; col < grid.columns; col++) texts.push("");
      cells.forEach(function (cell) { texts[cell[0]] = texts[cell[0]] ? texts[cell[0]] + "; " + cell[1] : cell[1]; });
      texts.forEach(function (t) {
        var td = owner.createElement(i === 0 ? "th" : "td");
        td.textContent = t;
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    return table;
  }
