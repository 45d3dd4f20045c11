  // -- what the page's own scripts make clickable --------------------------------------------------
  // CANDIDATES finds what HTML and ARIA say is interactive. Scripts make other elements clickable:
  // spans, divs and list items with handlers, anchors without href (a calendar's Prev and Next).
  // jawad_clicks.js, in the page's world, notes the elements that get handlers (<html> for the
  // document's and the window's) and tells them to this world only when asked on its secret channel
  // (``marked``: nothing on the elements, so the page can neither read nor forge a note); inline on*
  // attributes and tabindex >= 0 say so too; and under a handler (a delegated one on the document or
  // a list), the outermost element of each group with cursor:pointer is what a person clicks.
  var CLICK_CHANNEL = "__JAWAD_CHANNEL__";
  var HANDLER_SEL = "[onclick], [ondblclick], [onmousedown], [onmouseup], [onpointerdown], " +
                    "[onpointerup], [ontouchstart], [onkeydown]";
  var SCRIPTED_SEL = HANDLER_SEL + ", [tabindex]:not([tabindex^='-'])";
  var markCache = null;  // during one J.call: document -> its noted elements (and what holds one)

  // The elements of ``doc`` the page's scripts gave handlers: { els: Set, holders: Set of their
  // ancestors }, asked of jawad_clicks.js in ``doc``'s window (answered synchronously).
  function marked(doc) {
    var known = markCache && markCache.get(doc);
    if (known) return known;
    var found = { els: new Set(), holders: new Set() };
    var win = doc && doc.defaultView;
    if (win) {
      var take = function (e) {
        e.stopImmediatePropagation();
        var path = e.composedPath();
        var el = path.length ? path[0] : e.target;
        if (el && el.nodeType === 1 && !found.els.has(el)) {
          found.els.add(el);
          for (var up = parentDeep(el), guard = 0; up && guard < 64 && !found.holders.has(up); up = parentDeep(up), guard++) {
            found.holders.add(up);
          }
        }
      };
      win.addEventListener(CLICK_CHANNEL + "-answer", take, true);
      try { win.dispatchEvent(new Event(CLICK_CHANNEL + "-ask")); } catch (e) { /* a frame going away */ }
      finally { win.removeEventListener(CLICK_CHANNEL + "-answer", take, true); }
    }
    if (markCache) markCache.set(doc, found);
    return found;
  }

  function parentDeep(el) {
    if (el.parentElement) return el.parentElement;
    var root = el.getRootNode ? el.getRootNode() : null;
    return root && root.nodeType === 11 && root.host ? root.host : null;
  }

  // Whether the page's scripts gave ``el`` a handler (noted, or an inline on* attribute).
  function handles(el) {
    return !!el && el.nodeType === 1 && (matchesSafe(el, HANDLER_SEL) || marked(el.ownerDocument).els.has(el));
  }

  function scripted(el) {
    return matchesSafe(el, SCRIPTED_SEL) || (el.nodeType === 1 && marked(el.ownerDocument).els.has(el));
  }

  // ``el`` or the nearest element above it with a handler, through shadow hosts and frames; or null.
  function handlerAround(el) {
    for (var n = el, guard = 0; n && guard < 200; guard++) {
      if (handles(n)) return n;
      var up = parentDeep(n);
      if (!up) {
        var win = n.ownerDocument && n.ownerDocument.defaultView;
        up = win && win.frameElement ? win.frameElement : null;
      }
      n = up;
    }
    return null;
  }

  // The elements in ``root`` (a document or a shadow root) matching ``sel`` or noted, in document order.
  function scriptedMatches(root, sel) {
    var list = Array.prototype.slice.call(root.querySelectorAll(sel));
    var doc = root.ownerDocument || root, extra = [];
    marked(doc).els.forEach(function (el) {
      if (el.getRootNode() === root && !matchesSafe(el, sel)) extra.push(el);
    });
    if (!extra.length) return list;
    return list.concat(extra).sort(byDocument);
  }
  // A control by itself: an element inside one is a part of it (its icon, its text).
  var CONTROL_SEL = "a[href], button, select, textarea, summary, input:not([type=hidden]), [role=button], " +
    "[role=link], [role=checkbox], [role=radio], [role=tab], [role=menuitem], [role=menuitemcheckbox], " +
    "[role=menuitemradio], [role=option], [role=switch], [role=treeitem], [role=slider], [role=spinbutton], " +
    "[role=combobox], [role=textbox], [role=searchbox]";
  var NOT_CONTROLS = { HTML: 1, BODY: 1, HEAD: 1, SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, IFRAME: 1, FRAME: 1,
                       OPTION: 1 };
  var NO_WALK = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, HEAD: 1, IFRAME: 1, FRAME: 1, SELECT: 1 };
  // An element with a handler, no pointer and more text than this is where a delegated handler
  // listens (a framework's root, a list), not a control.
  var CONTAINER_TEXT = 200;

  // Cursors that say "press here": a pointer, and the hand or arrows of what is dragged with the mouse
  // (a board's cards take a press, a move and a release on a handler above them).
  var POINTING = { pointer: 1, grab: 1, move: 1 };
  var DRAGGING = { grab: 1, move: 1 };

  // -- menus that CSS opens on hover -----------------------------------------------------------------
  // A menu bar whose submenus only ``li:hover > ul`` shows has nothing to click and no handler: the
  // stylesheet says what a pointer opens. The elements a ``:hover`` rule styles something inside of (or
  // after) that now holds hidden controls are listed, marked "opens on hover". Stylesheets from another
  // origin cannot be read and are passed over.
  var HOVER_RULES_MAX = 20000, HOVER_SUBJECTS_MAX = 40;

  function hoverSubjects(root) {
    var sheets;
    try {
      sheets = Array.prototype.slice.call(root.styleSheets || []).concat(Array.prototype.slice.call(root.adoptedStyleSheets || []));
    } catch (e) { return []; }
    var subjects = new Set(), seen = 0;
    function walk(rules) {
      if (!rules) return;
      for (var i = 0; i < rules.length && seen < HOVER_RULES_MAX; i++) {
        var rule = rules[i];
        seen++;
        if (rule.cssRules && !rule.selectorText) { walk(rule.cssRules); continue; }
        var text = rule.selectorText || "";
        if (text.indexOf(":hover") < 0) continue;
        var parts = text.split(",");
        for (var p = 0; p < parts.length && subjects.size < HOVER_SUBJECTS_MAX; p++) {
          var at = parts[p].indexOf(":hover");
          if (at < 0) continue;
          var before = parts[p].slice(0, at).trim(), after = parts[p].slice(at + 6).replace(/^(:[\w-]+(\([^)]*\))?)+/, "");
          // Something inside or after the hovered element changes; the hovered element is named.
          if (!/^\s*[>+~ ]\s*\S/.test(after) && !/^\s+\S/.test(after)) continue;
          if (!before || /[>+~ ]$/.test(parts[p].slice(0, at))) continue;
          subjects.add(before.replace(/:[\w-]+(\([^)]*\))?$/, "") || before);
        }
      }
    }
    for (var s = 0; s < sheets.length; s++) {
      var rules;
      try { rules = sheets[s].cssRules; } catch (e) { rules = null; }  // another origin's sheet
      walk(rules);
    }
    var out = [];
    subjects.forEach(function (sel) {
      var els;
      try { els = root.querySelectorAll(sel); } catch (e) { return; }
      for (var i = 0; i < els.length && out.length < 200; i++) {
        if (!NOT_CONTROLS[els[i].tagName] && hidesControls(els[i])) out.push(els[i]);
      }
    });
    return out;
  }

  // Whether a control inside ``el`` (or in its next sibling, for ``:hover + .menu``) is hidden now.
  function hidesControls(el) {
    var places = [el];
    if (el.nextElementSibling) places.push(el.nextElementSibling);
    for (var p = 0; p < places.length; p++) {
      var controls = places[p].querySelectorAll(CONTROL_SEL);
      for (var i = 0; i < controls.length && i < 20; i++) {
        if (!isVisible(controls[i])) return true;
      }
    }
    return false;
  }

  function pageHandles(doc) {
    return !!doc && ((doc.documentElement && handles(doc.documentElement)) || (doc.body && handles(doc.body)));
  }

  // The outermost element of each cursor:pointer group in a root (document order), not looking
  // inside ``skip`` (the controls already listed: what is inside them is part of them).
  function pointerGroups(root, inherited, skip) {
    var out = [], els = [], cursors = [];
    for (var c = root.lastElementChild; c; c = c.previousElementSibling) { els.push(c); cursors.push(inherited); }
    while (els.length) {
      var el = els.pop(), above = cursors.pop();
      if (NO_WALK[el.tagName] || skip.has(el)) continue;
      // Only the cursor is read (a second property would double the cost); a hidden group is
      // dropped later, when its rectangle is measured.
      var cursor = getComputedStyle(el).cursor;
      if (POINTING[cursor] && !POINTING[above]) out.push(el);
      if (el.tagName === "svg") continue;  // an icon's inside is the icon
      for (var k = el.lastElementChild; k; k = k.previousElementSibling) { els.push(k); cursors.push(cursor); }
    }
    return out;
  }

  // The elements the page's scripts made clickable in one root (document or shadow root) that are
  // not in ``taken``: ``found`` in document order, and ``pointers`` (the pointer groups among them).
  function scriptedIn(root, taken, hovers) {
    var found = [], pointers = [], seen = new Set();
    var withHandlers = scriptedMatches(root, SCRIPTED_SEL);
    for (var i = 0; i < withHandlers.length; i++) {
      if (taken.has(withHandlers[i]) || NOT_CONTROLS[withHandlers[i].tagName]) continue;
      found.push(withHandlers[i]); seen.add(withHandlers[i]);
    }
    var opens = hoverSubjects(root);
    for (var o = 0; o < opens.length; o++) {
      hovers.add(opens[o]);
      if (taken.has(opens[o]) || seen.has(opens[o])) continue;
      found.push(opens[o]); seen.add(opens[o]);
    }
    if (opens.length && found.length > opens.length) found.sort(byDocument);
    var doc = root.ownerDocument || root, host = root.host || null;
    // A pointer is only a style unless a handler is on the element or above it.
    var handled = pageHandles(doc) || (host && !!handlerAround(host));
    if (!handled && !withHandlers.length) return { found: found, pointers: pointers };
    var groups = pointerGroups(root, host ? getComputedStyle(host).cursor : "auto", taken);
    for (var p = 0; p < groups.length; p++) {
      var el = groups[p];
      if (seen.has(el) || NOT_CONTROLS[el.tagName]) continue;
      if (!handled && !handlerAround(el)) continue;
      pointers.push(el);
    }
    if (pointers.length) {
      found = found.concat(pointers);
      if (pointers.length < found.length) found.sort(byDocument);
    }
    return { found: found, pointers: pointers };
  }

  function byDocument(a, b) {
    return a === b ? 0 : (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
  }

  // Whether an element with a handler and no pointer is where a delegated handler listens (it holds
  // other controls or much text), not a control.
  function isContainer(el) {
    return !POINTING[getComputedStyle(el).cursor] &&
           (!!el.querySelector(CONTROL_SEL + ", " + SCRIPTED_SEL) || marked(el.ownerDocument).holders.has(el) ||
            (el.textContent || "").length > CONTAINER_TEXT);
  }

  // Whether a scripted element is worth a line: not a part of a listed control, not a label whose
  // control is listed (with this label's words), not a page-wide wrapper; and with a pointer, or
  // small and holding no other control (``containers``: the elements around pointer groups).
  function worthListing(el, rect, containers, hovers) {
    var parent = el.parentElement;
    if (parent && parent.closest(CONTROL_SEL)) return false;
    if (hovers.has(el)) return true;
    var label = parent && parent.closest("label");  // a switch's knob: clicking it clicks the label's box
    if (label && label.control) return false;
    if (el.tagName === "LABEL" && el.control && !standsFor(el)) return false;
    var win = el.ownerDocument.defaultView || window;
    if (rect.width * rect.height > 0.6 * win.innerWidth * win.innerHeight && el.querySelector(CONTROL_SEL)) return false;
    if (POINTING[getComputedStyle(el).cursor]) return true;
    return !containers.has(el) && !isContainer(el);
  }

  // A checkbox or radio the page hides behind its label's styling: transparent, hidden, clipped to a
  // pixel or moved off the page. The label is what a person clicks (and what read_page lists).
  function concealed(el) {
    var r = visibleRect(el);
    if (!r || (r.width <= 2 && r.height <= 2)) return true;
    var win = el.ownerDocument.defaultView || window;
    if (r.right + win.scrollX < 0 || r.bottom + win.scrollY < 0) return true;
    var cs = getComputedStyle(el);
    return /rect\(\s*0/.test(cs.clip || "") || /inset\(\s*50%/.test(cs.clipPath || "");
  }

  // The concealed checkbox or radio a label stands for, or null.
  function standsFor(el) {
    if (!el || el.tagName !== "LABEL") return null;
    var c = el.control;
    if (!c || c.tagName !== "INPUT") return null;
    var type = String(c.type || "").toLowerCase();
    if (type !== "checkbox" && type !== "radio") return null;
    return concealed(c) ? c : null;
  }

  // The visible label standing for a concealed checkbox or radio, with its rectangle, or null.
  function standIn(input) {
    var labels = input.labels || [];
    for (var i = 0; i < labels.length; i++) {
      var rect = visibleRect(labels[i]);
      if (rect && standsFor(labels[i]) === input) return { el: labels[i], rect: rect };
    }
    return null;
  }
