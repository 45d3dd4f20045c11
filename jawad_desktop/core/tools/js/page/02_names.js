  // -- names for icons ------------------------------------------------------------------------------
  var HAS_WORD = /\p{L}/u;  // a letter of any script: the text says something by itself
  var CLASS_NOISE = { icon: 1, icons: 1, ico: 1, btn: 1, button: 1, fa: 1, fas: 1, far: 1, fal: 1, fab: 1, solid: 1,
    regular: 1, light: 1, material: 1, symbols: 1, outlined: 1, rounded: 1, glyphicon: 1, bi: 1, mdi: 1, svg: 1, js: 1,
    is: 1, has: 1, active: 1, open: 1, on: 1, off: 1, sm: 1, md: 1, lg: 1, xl: 1, xs: 1, clickable: 1, pointer: 1,
    link: 1, item: 1, action: 1, actions: 1, control: 1, wrapper: 1, container: 1, inner: 1, outer: 1, small: 1,
    large: 1, big: 1, primary: 1, secondary: 1, default: 1, round: 1, flat: 1, ghost: 1, text: 1, label: 1, the: 1,
    and: 1, hover: 1, focus: 1, selected: 1, disabled: 1, hidden: 1, visible: 1, left: 1, right: 1, top: 1, bottom: 1,
    ui: 1, el: 1, component: 1, widget: 1, toggle: 1 };

  var UTILITY_CLASS = new RegExp("^-?(bg|text|border|rounded|shadow|font|p[xytrbl]?|m[xytrbl]?|w|h|min|max|flex|grid|gap|" +
    "space|items|justify|self|place|content|cursor|transition|duration|ease|delay|opacity|ring|outline|z|top|left|" +
    "right|bottom|inset|overflow|select|leading|tracking|whitespace|break|col|row|order|scale|rotate|translate|" +
    "transform|animate|fill|stroke|object|aspect|container|hidden|block|inline|absolute|relative|fixed|sticky|" +
    "static|visible|invisible|uppercase|lowercase|capitalize|italic|underline|truncate|sr|from|via|to|divide|" +
    "backdrop|blur|filter|pointer|resize|list|align|float|clear|box|display|decoration|indent|antialiased)(-|$)");

  // Words from class names, the last resort for an icon with no text and no name ("icon-trash":
  // "trash"); at most two.
  function classWords(el) {
    var sources = [el].concat(Array.prototype.slice.call(el.querySelectorAll ? el.querySelectorAll("i, span, svg, use") : [], 0, 3));
    var words = [];
    for (var s = 0; s < sources.length && words.length < 2; s++) {
      var n = sources[s];
      var cls = (typeof n.className === "string" ? n.className : (n.getAttribute && n.getAttribute("class")) || "");
      // Utility classes (Tailwind's "bg-purple-500 hover:shadow-lg", Bootstrap's "p-3") say how it
      // looks, not what it is: left out.
      cls = cls.split(/\s+/).filter(function (c) { return c && c.indexOf(":") < 0 && !UTILITY_CLASS.test(c); }).join(" ");
      var use = n.tagName && n.tagName.toLowerCase() === "use" ? (n.getAttribute("href") || n.getAttribute("xlink:href") || "") : "";
      var tokens = (cls + " " + use.replace(/^.*#/, "")).split(/[\s_-]+|(?=[A-Z][a-z])/);
      for (var t = 0; t < tokens.length && words.length < 2; t++) {
        var w = tokens[t].toLowerCase();
        if (w.length < 3 || /\d/.test(w) || CLASS_NOISE[w] || words.indexOf(w) >= 0) continue;
        words.push(w);
      }
    }
    return words.join(" ");
  }

  // The name of an icon-only control: an image's alt text, its title, an SVG <title>, a labelled
  // icon inside, then (``withClasses``) words from its class names.
  function iconName(el, withClasses) {
    if (!el.querySelector) return "";
    var img = el.tagName === "IMG" ? el : el.querySelector("img[alt]");
    if (img && (img.getAttribute("alt") || "").trim()) return clip(img.getAttribute("alt"), 60);
    if (el.title && el.title.trim()) return clip(el.title, 60);
    var t = el.querySelector("svg title");
    if (t && (t.textContent || "").trim()) return clip(t.textContent, 60);
    var named = el.querySelector("[aria-label], [title]");
    if (named) return clip(named.getAttribute("aria-label") || named.getAttribute("title"), 60);
    return withClasses ? classWords(el) : "";
  }

  // A tree item's own words, without the items nested in it.
  function ownText(el) {
    var parts = [];
    for (var c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) parts.push(c.textContent);
      else if (c.nodeType === 1 && !/^(UL|OL)$/.test(c.tagName) && !matchesSafe(c, "[role=group], [role=tree], [role=treeitem]")) {
        parts.push(c.innerText !== undefined ? c.innerText : c.textContent);
      }
    }
    return parts.join(" ");
  }

  // -- telling repeated entries apart ----------------------------------------------------------------
  // Entries with the same role and name (five "Delete" buttons, a star on every row): each gets the
  // words of its own row, the largest block around it that holds no other of them and little text
  // (a site's header is no row); in a grid where
  // each is a cell of its own, its column's header (a table's, or the unlisted text above it); else
  // the words next to it.
  var CONTEXT_CHARS = 60;
  var ROW_TEXT = 300;  // a block with more text is a part of the page, not a row

  function nameKey(item) {
    var text = clip(item._el.innerText || "", 80);
    return item.role + "\n" + (text && !HAS_WORD.test(text) ? iconName(item._el, false) || item.label : item.label);
  }

  function addContext(items) {
    var groups = new Map(), listed = new Set();
    for (var i = 0; i < items.length; i++) {
      var key = nameKey(items[i]);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(items[i]);
      listed.add(items[i]._el);
    }
    groups.forEach(function (group) {
      if (group.length < 2) return;
      var count = new Map(), members = new Set();
      group.forEach(function (item) {
        members.add(item._el);
        for (var n = item._el.parentElement, d = 0; n && d < 15; n = n.parentElement, d++) count.set(n, (count.get(n) || 0) + 1);
      });
      group.forEach(function (item) {
        var el = item._el, row = el;
        while (row.parentElement && count.get(row.parentElement) === 1 && !/^(BODY|HTML)$/.test(row.parentElement.tagName) &&
               (row.parentElement.textContent || "").length <= ROW_TEXT) {
          row = row.parentElement;
        }
        var text = "";
        if (row !== el) {
          var own = clip(el.innerText || el.textContent || "", 10000);
          text = clip(row.innerText || "", 10000);
          if (own) text = text.replace(own, " ");
          text = clip(text, CONTEXT_CHARS);
        }
        var kind = "row";
        if (!text && row === el) { text = columnHeader(row, listed); kind = "column"; }
        if (!text && row === el) { text = besideText(row, members); kind = "next to"; }
        if (text) { item.context = text; item.contextKind = kind; }
      });
    });
  }

  // The header of the column a cell is in: a table's first row, or in a grid of siblings the nearest
  // unlisted text above it that overlaps it across.
  function columnHeader(el, listed) {
    var cell = el.closest ? el.closest("td, th") : null;
    if (cell && cell.parentElement) {
      var table = cell.closest("table"), first = table && table.rows.length ? table.rows[0] : null;
      if (first && first !== cell.parentElement && first.cells[cell.cellIndex]) {
        return clip(first.cells[cell.cellIndex].innerText || "", CONTEXT_CHARS);
      }
    }
    var r = el.getBoundingClientRect(), x = r.left + r.width / 2, best = null, bestGap = Infinity, seen = 0;
    for (var s = el.previousElementSibling; s && seen < 60; s = s.previousElementSibling, seen++) {
      if (listed.has(s)) continue;
      var q = s.getBoundingClientRect();
      if (q.bottom > r.top + 1 || q.left > x || q.right < x || !q.width) continue;
      if (r.top - q.bottom < bestGap) { bestGap = r.top - q.bottom; best = s; }
    }
    return best ? clip(best.innerText || "", CONTEXT_CHARS) : "";
  }

  // The words of the nearest sibling that is not one of the group (a folder's name beside its toggle).
  function besideText(el, members) {
    var sides = [el.nextElementSibling, el.previousElementSibling];
    for (var i = 0; i < sides.length; i++) {
      var s = sides[i];
      if (s && !members.has(s)) {
        var t = clip(s.innerText || "", CONTEXT_CHARS);
        if (t) return t;
      }
    }
    return "";
  }
