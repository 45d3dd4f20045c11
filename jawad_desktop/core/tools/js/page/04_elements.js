  // -- the element list: where each element is, its state, and the order the model reads -------

  var NAV_SEL = "nav, [role=navigation]";
  var CHROME_SEL = "header, footer, [role=banner], [role=contentinfo]";
  var MAIN_SEL = "main, [role=main]";
  var DIALOG_SEL = "dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]";
  // A menu or listbox is a popup when it floats over the page (one laid out in it is part of it).
  var MENU_SEL = "[role=menu], [role=listbox], [role=tooltip]";
  // A header or footer inside these is the content's own (an article's byline, its share links).
  var CONTENT_SEL = "article, main, [role=main], [role=article]";
  var REGION_RANK = { dialog: 0, main: 1, other: 3, navigation: 5 };
  var RUN_MIN = 6;  // sibling links that make a run of navigation links outside the content

  // ``el.closest(sel)``, continued through shadow hosts and the frames it sits in.
  function closestDeep(el, sel) {
    for (var n = el, guard = 0; n && guard < 12; guard++) {
      var hit = n.closest ? n.closest(sel) : null;
      if (hit) return hit;
      var root = n.getRootNode ? n.getRootNode() : null;
      if (root && root.nodeType === 11 && root.host) { n = root.host; continue; }
      var win = n.ownerDocument && n.ownerDocument.defaultView;
      n = win && win.frameElement ? win.frameElement : null;
    }
    return null;
  }

  // Whether a header or footer is the site's (banner, contentinfo), not a part of the content.
  function isSiteChrome(node) {
    if (!node) return false;
    var role = node.getAttribute("role");
    if (role === "banner" || role === "contentinfo") return true;
    return !(node.parentElement && node.parentElement.closest(CONTENT_SEL));
  }

  // Whether ``box`` holds a run of links: at least RUN_MIN children that are links, or list items
  // that are nothing but a link (a category list, a footer column). Cached per box.
  function isLinkRun(box, cache) {
    if (!box) return false;
    var known = cache.get(box);
    if (known !== undefined) return known;
    var kids = box.children, items = 0;
    if (kids.length >= RUN_MIN) {
      for (var i = 0; i < kids.length; i++) {
        var k = kids[i];
        if (k.tagName === "A" && k.hasAttribute("href")) { items++; continue; }
        if (k.tagName !== "LI" && k.tagName !== "DD" && k.tagName !== "DT") continue;
        var links = k.querySelectorAll("a[href]");
        if (!links.length || k.querySelector("button, input, select, textarea")) continue;
        var linkText = 0;
        for (var l = 0; l < links.length; l++) linkText += (links[l].textContent || "").trim().length;
        if ((k.textContent || "").trim().length - linkText <= 10) items++;
      }
    }
    var run = items >= RUN_MIN && items >= 0.7 * kids.length;
    cache.set(box, run);
    return run;
  }

  function linkRunOf(el, cache) {
    if (el.tagName !== "A" && (el.getAttribute("role") || "") !== "link") return null;
    var parent = el.parentElement;
    if (!parent) return null;
    if (/^(LI|DD|DT)$/.test(parent.tagName)) parent = parent.parentElement;
    return isLinkRun(parent, cache) ? parent : null;
  }

  // What the page shows as its main content: the main landmark; else the article or the largest
  // block around the first heading that holds no site navigation (no nav, header, footer or run of
  // links); else nothing (``near`` then says how far below the heading is still content).
  function contentArea(runs) {
    var roots = [];
    var mains = document.querySelectorAll(MAIN_SEL);
    for (var i = 0; i < mains.length; i++) if (isVisible(mains[i])) roots.push(mains[i]);
    if (roots.length) return { roots: roots, landmark: true, near: null };
    var h1 = document.querySelector("h1");
    if (!h1 || !isVisible(h1)) return { roots: [], landmark: false, near: null };
    var article = h1.closest("article, [role=article]");
    if (article) return { roots: [article], landmark: false, near: null };
    function holdsNavigation(box) {
      if (box.querySelector(NAV_SEL + ", " + CHROME_SEL)) return true;
      for (var r = 0; r < runs.length; r++) if (box.contains(runs[r])) return true;
      return false;
    }
    var block = h1;
    while (block.parentElement && block.parentElement !== document.body &&
           block.parentElement !== document.documentElement && !holdsNavigation(block.parentElement)) {
      block = block.parentElement;
    }
    if (block !== h1) return { roots: [block], landmark: false, near: null };
    var top = h1.getBoundingClientRect().top;
    return { roots: [], landmark: false, near: { from: top - 50, to: top + 1.5 * window.innerHeight } };
  }

  // Whether the box, or one of its nearest ancestors, is laid over the page. Cached per box.
  function floatsOver(box, cache) {
    var known = cache.get(box);
    if (known !== undefined) return known;
    var floating = false;
    for (var n = box, depth = 0; n && n.nodeType === 1 && depth < 4 && !floating; n = n.parentElement, depth++) {
      var pos = getComputedStyle(n).position;
      floating = pos === "absolute" || pos === "fixed";
    }
    cache.set(box, floating);
    return floating;
  }

  // Open popups whatever their role: what an expanded toggle controls or owns (a mega-menu, a
  // drop-down) when it is laid over the page, and open popovers.
  function openPopups(floatCache) {
    var out = [];
    var toggles = document.querySelectorAll(TOGGLE_SEL);
    for (var i = 0; i < toggles.length && out.length < 20; i++) {
      var ids = ((toggles[i].getAttribute("aria-controls") || "") + " " +
                 (toggles[i].getAttribute("aria-owns") || "")).split(/\s+/);
      for (var k = 0; k < ids.length; k++) {
        var box = ids[k] ? document.getElementById(ids[k]) : null;
        if (box && isVisible(box) && floatsOver(box, floatCache)) out.push(box);
      }
    }
    var typed = suggestionsBox();
    if (typed) out.push(typed.box);
    siblingPopups().forEach(function (_toggle, popup) { if (out.indexOf(popup) < 0) out.push(popup); });
    try {
      var open = document.querySelectorAll(":popover-open");
      for (var o = 0; o < open.length; o++) out.push(open[o]);
    } catch (e) { /* an engine without popovers */ }
    return out;
  }

  // The element's part of the page: "dialog" (an open dialog, menu, listbox or popup), "navigation"
  // (the site's nav, header and footer, runs of links outside the content), "main", or "other".
  function regionOf(el, rect, area, popups, runCache, floatCache) {
    if (closestDeep(el, DIALOG_SEL)) return "dialog";
    var menu = closestDeep(el, MENU_SEL);
    if (menu && floatsOver(menu, floatCache)) return "dialog";
    // Inside a frame, the frame's place in the page decides (the areas are the top document's).
    var anchor = el;
    for (var guard = 0; anchor.ownerDocument !== document && guard < 10; guard++) {
      var fw = anchor.ownerDocument.defaultView;
      if (!fw || !fw.frameElement) break;
      anchor = fw.frameElement;
    }
    for (var p = 0; p < popups.length; p++) if (contains(popups[p], anchor)) return "dialog";
    var nav = closestDeep(el, NAV_SEL);
    var chrome = closestDeep(el, CHROME_SEL);
    if (chrome && !isSiteChrome(chrome)) chrome = null;
    for (var m = 0; m < area.roots.length; m++) {
      var root = area.roots[m];
      if (!contains(root, anchor)) continue;
      // A nav inside the content (breadcrumbs, pagination) is navigation; a main inside a nav is not.
      return nav && nav !== root && contains(root, nav) ? "navigation" : "main";
    }
    if (nav || chrome) return "navigation";
    if (linkRunOf(el, runCache)) return "navigation";
    if (area.near && rect.top >= area.near.from && rect.top <= area.near.to) return "main";
    return "other";
  }

  function matchesSafe(el, sel) {
    try { return el.matches(sel); } catch (e) { return false; }
  }

  var NO_VALUE_TYPES = { checkbox: 1, radio: 1, submit: 1, button: 1, reset: 1, image: 1, file: 1, hidden: 1 };

  // What the user sees of the element's state, only what is set: checked, mixed, selected,
  // disabled, value (a select's chosen option's text), expanded, pressed, required, invalid.
  function stateOf(el) {
    var control = standsFor(el);  // a label standing for its concealed checkbox: the box's state
    if (control) return stateOf(control);
    var s = {}, tag = el.tagName;
    var type = tag === "INPUT" ? String(el.type || "").toLowerCase() : "";
    if (el.disabled || el.getAttribute("aria-disabled") === "true" || matchesSafe(el, ":disabled")) s.disabled = true;
    if (type === "checkbox" || type === "radio") {
      s.checked = !!el.checked;
      if (el.indeterminate) s.mixed = true;
    } else {
      var ac = el.getAttribute("aria-checked");
      if (ac === "true" || ac === "false") s.checked = ac === "true";
      else if (ac === "mixed") s.mixed = true;
    }
    if (el.getAttribute("aria-selected") === "true") s.selected = true;
    var ex = el.getAttribute("aria-expanded");
    if (ex === "true" || ex === "false") s.expanded = ex === "true";
    else if (tag === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS") s.expanded = !!el.parentElement.open;
    var pr = el.getAttribute("aria-pressed");
    if (pr === "true") s.pressed = true;
    else if (pr === "mixed") s.mixed = true;
    if (el.required || el.getAttribute("aria-required") === "true") s.required = true;
    // Invalid as the page says it, or as the browser does once there is a value (an empty required
    // field is not flagged before anyone typed in it).
    if (el.getAttribute("aria-invalid") === "true" || matchesSafe(el, ":user-invalid") ||
        (el.validity && !el.validity.valid && el.value)) s.invalid = true;
    if (tag === "SELECT") {
      var chosen = [], options = [];
      for (var i = 0; i < el.options.length; i++) {
        var o = el.options[i];
        if (o.selected) chosen.push(clip(o.text, OPTION_CHARS));
        if (options.length < 12) options.push(clip(o.text, OPTION_CHARS) + (o.disabled ? " (unavailable)" : ""));
      }
      if (chosen.length) s.value = chosen.join(", ");
      s.options = options;
      s.optionCount = el.options.length;
    } else if ((tag === "TEXTAREA" || (tag === "INPUT" && !NO_VALUE_TYPES[type])) && el.value) {
      // A password's characters never leave the page: the model is told the field is filled.
      // A read-only field holds text the page gives to read (a list, a code): all of it, line by line.
      s.value = type === "password" ? "(filled)" : el.readOnly ? fieldLines(el.value, READ_ONLY_VALUE_CHARS) : clip(el.value, 40);
    } else if (el.hasAttribute("aria-valuenow") || el.hasAttribute("aria-valuetext")) {
      // A custom slider or spinner says its value the ARIA way.
      s.value = clip(el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow"), 40);
    }
    // A slider's range: the input's min and max, or ARIA's; a span slider's place along its track.
    if (type === "range") {
      if (el.min !== "" || el.max !== "") s.range = [el.min || "", el.max || ""];
    } else if (el.hasAttribute("aria-valuemin") || el.hasAttribute("aria-valuemax")) {
      s.range = [el.getAttribute("aria-valuemin") || "", el.getAttribute("aria-valuemax") || ""];
    } else {
      var place = sliderPosition(el);
      if (place) { s.value = place.percent + " %"; s.range = ["0 %", "100 %"]; s.keys = true; if (place.upright) s.upright = true; }
    }
    if (tag === "TEXTAREA" && el.readOnly) s.readonly = true;
    if (tag === "INPUT" && el.readOnly && !NO_VALUE_TYPES[type]) {
      s.readonly = true;
      if (opensPicker(el)) s.picker = true;
    } else if (tag === "INPUT" && opensPicker(el)) {
      s.picker = true;
    }
    return s;
  }

  // An option's text in full up to this (a list box's choices are told apart by their ends too); a
  // read-only field's text up to READ_ONLY_VALUE_CHARS, its lines kept.
  var OPTION_CHARS = 120, READ_ONLY_VALUE_CHARS = 2000;

  function fieldLines(text, n) {
    var kept = String(text || "").split("\n").map(function (line) { return line.replace(/\s+/g, " ").trim(); })
      .filter(Boolean).join("\n");
    return kept.length > n ? kept.slice(0, n - 1) + "…" : kept;
  }

  // Whether ``el`` is in the box a widget draws just after a native <select> it hides away (a pixel in
  // size, or clipped to nothing): the box stands for the select, whose choices select_option makes on
  // the select itself (the widget follows its change).
  function drawnForSelect(el, listed) {
    for (var n = el, up = 0; n && up < 4; n = n.parentElement, up++) {
      var s = n.previousElementSibling;
      if (!s || s.tagName !== "SELECT" || !listed.has(s)) continue;
      var r = s.getBoundingClientRect(), cut = getComputedStyle(s).clip;
      if (r.width <= 2 || r.height <= 2 || /rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)/.test(cut)) return true;
    }
    return false;
  }

  // Whether a text field is a date picker's: the picker libraries' marks (jQuery UI, flatpickr,
  // Bootstrap datepicker, Pikaday, react-datepicker...), or a popup it says it opens.
  var PICKER_CLASS = /hasDatepicker|flatpickr-input|datepicker|date-picker|datetimepicker|pikaday|react-datepicker|air-datepicker|daterangepicker|duet-date/i;
  function opensPicker(el) {
    if (String(el.type || "").toLowerCase().indexOf("date") === 0) return false;  // the browser's own
    var cls = (typeof el.className === "string" ? el.className : "") + " " + (el.getAttribute("data-provide") || "") +
              " " + (el.getAttribute("data-toggle") || "") + " " + (el.parentElement && typeof el.parentElement.className === "string" ? el.parentElement.className : "");
    if (PICKER_CLASS.test(cls)) return true;
    var popup = (el.getAttribute("aria-haspopup") || "").toLowerCase();
    return popup === "dialog" || popup === "grid";
  }

  // Whether the element's rectangle (``rect``, in its own document) overlaps the top-level viewport.
  function inViewport(el, rect) {
    var r = el.ownerDocument === document ? { x: rect.left, y: rect.top, width: rect.width, height: rect.height }
                                          : topRect(el);
    return r.x < window.innerWidth && r.y < window.innerHeight && r.x + r.width > 0 && r.y + r.height > 0;
  }

  // A link's label that says nothing of its own (empty, or its address): a twin with the same
  // address and a real label stands for it.
  function weakLabel(label, href) {
    return !label || label === href || /^(https?:|\/|#)/.test(label);
  }

  // The visible interactive elements in the order the model reads them, each with its region,
  // whether it is in the viewport, its state, and an index into J.refs (the indexes follow the
  // order, so [n] is what the model sees). Order: open dialogs and menus, the main content (what is
  // in the viewport first), the rest of the page (viewport first), the site's navigation last.
  // Links to the same place with the same label (a product's image and its title) are one entry,
  // ``dupes`` counting the others. ``limit`` caps the entries outside the navigation and, again,
  // those in it; ``omitted`` counts what is past the caps.
  J.elements = function (limit) {
    return withSelectorMemo(function () { return listElements(limit); });
  };

  function listElements(limit) {
    var roots = [];
    collectRoots(document, roots, 0);
    J.refs = [null];
    var candidates = 0, hidden = 0, omitted = 0;
    var visible = [], rects = [], orders = [], runCache = new Map(), runs = [];
    var taken = new Set(), segments = [];
    function keep(el, rect, order) {
      taken.add(el); visible.push(el); rects.push(rect); orders.push(order);
      var run = linkRunOf(el, runCache);
      if (run && runs.indexOf(run) < 0) runs.push(run);
    }
    for (var r = 0; r < roots.length; r++) {
      var list = roots[r].querySelectorAll(CANDIDATES);
      candidates += list.length;
      segments.push(visible.length);
      for (var i = 0; i < list.length; i++) {
        var el0 = list[i], rect = visibleRect(el0);
        var type0 = el0.tagName === "INPUT" ? String(el0.type).toLowerCase() : "";
        if ((type0 === "checkbox" || type0 === "radio") && (!rect || concealed(el0))) {
          var stand = standIn(el0);  // a box styled away behind its label: the label is the control
          if (stand) { el0 = stand.el; rect = stand.rect; }
        }
        if (!rect) { hidden++; continue; }
        if (!taken.has(el0)) keep(el0, rect, visible.length);
      }
    }
    segments.push(visible.length);
    // What the page's scripts made clickable, placed in page order among the rest (a binary search
    // in its root's run of controls).
    var scriptedByRoot = [], containers = new Set(), hovers = new Set();
    for (var sr = 0; sr < roots.length; sr++) {
      var got = scriptedIn(roots[sr], taken, hovers);
      candidates += got.found.length;
      scriptedByRoot.push(got.found);
      for (var g = 0; g < got.pointers.length; g++) {
        for (var up = got.pointers[g].parentElement; up && !containers.has(up); up = up.parentElement) containers.add(up);
      }
    }
    for (var sr2 = 0; sr2 < roots.length; sr2++) {
      var found = scriptedByRoot[sr2], lo0 = segments[sr2], hi0 = segments[sr2 + 1];
      for (var f = 0; f < found.length; f++) {
        var sel = found[f], srect = visibleRect(sel);
        if (!srect) { hidden++; continue; }
        if (taken.has(sel) || !worthListing(sel, srect, containers, hovers)) continue;
        var lo = lo0, hi = hi0;
        while (lo < hi) {
          var mid = (lo + hi) >> 1;
          if (visible[mid].compareDocumentPosition(sel) & Node.DOCUMENT_POSITION_FOLLOWING) lo = mid + 1; else hi = mid;
        }
        keep(sel, srect, lo - 0.5 + f / (found.length + 1) / 2);
      }
    }
    var area = contentArea(runs);
    var floatCache = new Map();
    var popups = openPopups(floatCache);
    var entries = [];
    for (var v = 0; v < visible.length; v++) {
      var region = regionOf(visible[v], rects[v], area, popups, runCache, floatCache);
      var seen = inViewport(visible[v], rects[v]);
      // In view first; in the navigation, its controls (search, menu buttons) before its links.
      var later = region === "navigation" ? roleOf(visible[v]) === "LINK" : !seen && region !== "dialog";
      var rank = REGION_RANK[region] + (later ? 1 : 0);
      entries.push({ el: visible[v], region: region, inView: seen, rank: rank, order: orders[v] });
    }
    entries.sort(function (a, b) { return a.rank - b.rank || a.order - b.order; });
    var items = [], byKey = new Map(), byHref = new Map(), weak = [], listed = new Map();
    var counts = { content: 0, navigation: 0 };
    for (var e = 0; e < entries.length; e++) {
      var el = entries[e].el;
      var kind = entries[e].region === "navigation" ? "navigation" : "content";
      if (counts[kind] >= limit) { omitted++; continue; }  // before the label: labels cost layout
      var role = roleOf(el), label = labelOf(el);
      if (role === "CLICKABLE" && hovers.has(el)) role = "MENU";
      // A dialog's title bar, dragged to move the dialog, holding its close button: the button is the
      // control (no task moves a dialog; a model took the bar for the button).
      if (role === "DRAGGABLE" && entries[e].region === "dialog" && !el.draggable && el.querySelector(CONTROL_SEL)) continue;
      // A widget's box drawn for a native list box it hides (Select2's): the list box is listed, once.
      if (el.tagName !== "SELECT" && drawnForSelect(el, taken)) continue;
      // The same control twice (a clickable row and the text in it that also takes clicks): the outer one.
      var outer = listedAround(el, listed);
      if (outer && outer.label === label) { outer.dupes = (outer.dupes || 0) + 1; continue; }
      var href = el.tagName === "A" && el.href ? String(el.href) : "";
      if (href) {
        var twin = byKey.get(role + "\n" + href + "\n" + label);
        if (!twin && weakLabel(label, el.getAttribute("href") || href)) {
          twin = byHref.get(role + "\n" + href);
          if (!twin) { weak.push({ entry: entries[e], role: role, label: label, href: href }); continue; }
        }
        if (twin) { twin.dupes = (twin.dupes || 0) + 1; continue; }
      }
      counts[kind]++;
      var item = addItem(el, entries[e], role, label, href);
      if (hovers.has(el)) item.opensOnHover = true;
      listed.set(el, item);
      items.push(item);
      if (href) {
        byKey.set(role + "\n" + href + "\n" + label, item);
        if (!byHref.has(role + "\n" + href)) byHref.set(role + "\n" + href, item);
      }
    }
    // Links with no label of their own and no twin: listed after all (still in their region's place).
    for (var w = 0; w < weak.length; w++) {
      var wk = weak[w];
      var same = byHref.get(wk.role + "\n" + wk.href);
      if (same) { same.dupes = (same.dupes || 0) + 1; continue; }
      var wkind = wk.entry.region === "navigation" ? "navigation" : "content";
      if (counts[wkind] >= limit) { omitted++; continue; }
      counts[wkind]++;
      var witem = addItem(wk.entry.el, wk.entry, wk.role, wk.label, wk.href);
      byHref.set(wk.role + "\n" + wk.href, witem);
      items.push(witem);
    }
    // The weak ones were held back: put every item back in reading order, then number them.
    items.sort(function (a, b) { return a._rank - b._rank || a._order - b._order; });
    addContext(items);
    for (var n = 0; n < items.length; n++) {
      J.refs.push(items[n]._el);
      items[n].index = n + 1;
      delete items[n]._el; delete items[n]._rank; delete items[n]._order;
    }
    rememberRefs(items);  // what each [n] was, to find it again after a re-render
    return { items: items, candidates: candidates, hidden: hidden, omitted: omitted, roots: roots.length,
             mainLandmark: area.landmark };
  }

  // The listed element around ``el`` (its nearest listed ancestor in the same tree), or null.
  function listedAround(el, listed) {
    for (var n = el.parentElement, up = 0; n && up < 12; n = n.parentElement, up++) {
      var item = listed.get(n);
      if (item) return item;
    }
    return null;
  }

  function addItem(el, entry, role, label, href) {
    var item = { index: 0, role: role, label: label, selector: fullSelector(el), region: entry.region,
                 inView: entry.inView, _el: el, _rank: entry.rank, _order: entry.order };
    if (href) item.href = href;
    var s = stateOf(el);
    for (var k in s) if (Object.prototype.hasOwnProperty.call(s, k)) item[k] = s[k];
    return item;
  }
