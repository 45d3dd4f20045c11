// Jawad's page library. It runs in an isolated JavaScript world (the page's own scripts cannot
// see it or tamper with it) and installs one object, window.__jawad, that the browser tools call.
// Every entry point returns a JSON string so results cross into Python unchanged.
// Elements in same-origin iframes and open shadow roots are reached by walking into them; their
// selectors join the steps with " >>> " (host or iframe selector, then the selector inside it).
(function () {
  "use strict";
  if (window.__jawad && window.__jawad.version === 1) return;

  var SEP = " >>> ";
  var CANDIDATES = [
    "a[href]", "button", "input:not([type=hidden])", "select", "textarea", "summary",
    "[role=button]", "[role=link]", "[role=checkbox]", "[role=radio]", "[role=tab]",
    "[role=menuitem]", "[role=switch]", "[role=option]", "[role=combobox]", "[role=textbox]",
    "[role=treeitem]", "[role=menuitemcheckbox]", "[role=menuitemradio]", "[role=slider]", "[role=spinbutton]",
    "[role=searchbox]", "[contenteditable=''], [contenteditable=true]"
  ].join(",");  // what scripts make clickable (handlers, tabindex, pointer groups): SCRIPTED_SEL, below
  var HIGHLIGHT_ID = "__jawad_highlight__";

  var J = { version: 1, refs: [null], refInfo: [null], refound: {} };

  function clip(text, n) {
    text = (text || "").replace(/\s+/g, " ").trim();
    return text.length > n ? text.slice(0, n - 1) + "…" : text;
  }

  function cssEscape(s) {
    return window.CSS && CSS.escape ? CSS.escape(s) : String(s).replace(/[^\w-]/g, "\\$&");
  }

  // A selector unique within the element's own root (document or shadow root).
  function localSelector(el) {
    var root = el.getRootNode();
    var tag = el.tagName.toLowerCase();
    function unique(sel) {
      try { return root.querySelectorAll(sel).length === 1; } catch (e) { return false; }
    }
    if (el.id && unique("#" + cssEscape(el.id))) return "#" + cssEscape(el.id);
    var attrs = ["data-testid", "data-test", "name", "aria-label", "href"];
    for (var i = 0; i < attrs.length; i++) {
      var v = el.getAttribute(attrs[i]);
      if (v && v.length < 80) {
        var s = tag + "[" + attrs[i] + "=\"" + v.replace(/"/g, "\\\"") + "\"]";
        if (unique(s)) return s;
      }
    }
    var classes = (typeof el.className === "string" ? el.className : "").split(/\s+/);
    for (var k = 0; k < classes.length; k++) {
      if (classes[k] && /^[A-Za-z_-][\w-]*$/.test(classes[k]) && unique(tag + "." + classes[k])) {
        return tag + "." + classes[k];
      }
    }
    var parts = [];
    var node = el;
    while (node && node.nodeType === 1) {
      var part = node.tagName.toLowerCase();
      if (node.id && unique("#" + cssEscape(node.id))) { parts.unshift("#" + cssEscape(node.id)); break; }
      var parent = node.parentElement;
      if (parent) {
        var same = 0, pos = 0;
        for (var c = parent.firstElementChild; c; c = c.nextElementSibling) {
          if (c.tagName === node.tagName) { same++; if (c === node) pos = same; }
        }
        if (same > 1) part += ":nth-of-type(" + pos + ")";
      } else if (node.parentNode && node.parentNode !== root) {
        break;
      }
      parts.unshift(part);
      node = parent;
    }
    return parts.join(" > ");
  }

  // The full selector, through iframes and shadow hosts.
  function fullSelector(el) {
    var steps = [];
    var node = el;
    while (node) {
      steps.unshift(localSelector(node));
      var root = node.getRootNode();
      if (root instanceof ShadowRoot) { node = root.host; continue; }
      var win = node.ownerDocument.defaultView;
      node = win && win.frameElement ? win.frameElement : null;
    }
    return steps.join(SEP);
  }

  function resolveSelector(selector) {
    var steps = selector.split(SEP);
    var root = document;
    var el = null;
    for (var i = 0; i < steps.length; i++) {
      if (!root) return null;
      try { el = root.querySelector(steps[i]); } catch (e) { return { error: "invalid" }; }
      if (!el) return null;
      if (i < steps.length - 1) {
        if (el.shadowRoot) root = el.shadowRoot;
        else if (el.tagName === "IFRAME" || el.tagName === "FRAME") {
          try { root = el.contentDocument; } catch (e) { root = null; }
        } else root = el;  // a plain descendant step
      }
    }
    return el;
  }

  function resolve(target) {
    if (target.index !== undefined && target.index !== null) {
      var el = J.refs[target.index];
      if (!el) return { error: "unknown_index" };
      // Gone (a re-render replaced it) or hidden (moved): found again from its listing's description.
      if (!el.isConnected || !isVisible(el)) {
        var again = refind(target.index, el.isConnected);
        if (again) { J.refs[target.index] = again; J.refound[target.index] = true; el = again; }
        else if (!el.isConnected) return { error: "detached" };
      }
      return { el: el, refound: !!J.refound[target.index] };
    }
    var found = resolveSelector(String(target.selector || ""));
    if (found && found.error) return { error: "invalid_selector" };
    if (!found) return { error: "not_found" };
    return { el: found };
  }

  function roleOf(el) {
    var control = standsFor(el);  // a label standing for its concealed checkbox
    if (control) return roleOf(control);
    var role = (el.getAttribute("role") || "").toLowerCase();
    if (role) return role.toUpperCase();
    var tag = el.tagName;
    if (tag === "A") return "LINK";
    if (tag === "BUTTON" || tag === "SUMMARY") return "BUTTON";
    if (tag === "SELECT") return "SELECT";
    if (tag === "TEXTAREA") return "TEXTAREA";
    if (tag === "INPUT") {
      var t = (el.getAttribute("type") || "text").toLowerCase();
      if (t === "submit" || t === "button" || t === "reset" || t === "image") return "BUTTON";
      if (t === "checkbox") return "CHECKBOX";
      if (t === "radio") return "RADIO";
      return "INPUT[" + t + "]";
    }
    if (el.isContentEditable) return "TEXTBOX";
    if (el.draggable && el.getAttribute("draggable") === "true") return "DRAGGABLE";
    return DRAGGING[getComputedStyle(el).cursor] ? "DRAGGABLE" : "CLICKABLE";
  }

  function labelOf(el) {
    var doc = el.ownerDocument;
    var aria = el.getAttribute("aria-label");
    if (aria) return clip(aria, 80);
    var by = el.getAttribute("aria-labelledby");
    if (by) {
      var t = by.split(/\s+/).map(function (id) {
        var n = doc.getElementById(id); return n ? n.textContent : "";
      }).join(" ");
      if (t.trim()) return clip(t, 80);
    }
    var tag = el.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      var type = (el.getAttribute("type") || "").toLowerCase();
      if ((type === "submit" || type === "button" || type === "reset") && el.value) return clip(el.value, 80);
      if (el.labels && el.labels.length) return clip(el.labels[0].textContent, 80);
      var ph = el.getAttribute("placeholder");
      if (ph) return clip(ph, 80);
      if (el.title) return clip(el.title, 80);
      if (el.name) return clip(el.name, 80);
      return "";
    }
    var text = (el.getAttribute("role") || "").toLowerCase() === "treeitem" ? ownText(el) :
               el.innerText !== undefined ? el.innerText : el.textContent;
    text = clip(text, 80);
    if (HAS_WORD.test(text)) return text;
    // An icon ("☆", "⋯", "🗑" or nothing): its name, with the symbol it shows; a number ("12", "09:00")
    // is a name itself; words from class names are the last resort (not for links: their address is).
    var name = iconName(el, false);
    if (!name && !/\d/.test(text) && !(tag === "A" && el.hasAttribute("href"))) name = classWords(el);
    if (name && text && name.indexOf(text) < 0) return clip(name + " " + text, 80);
    return name || text || clip(el.getAttribute("href") || "", 80);
  }

  function isVisible(el) {
    return !!visibleRect(el);
  }

  // The element's rectangle when it is visible, else null.
  function visibleRect(el) {
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return null;
    var r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? r : null;
  }

  // The element's rectangle in the top-level viewport (adds the offsets of enclosing iframes).
  function topRect(el) {
    var r = el.getBoundingClientRect();
    var x = r.left, y = r.top;
    var win = el.ownerDocument.defaultView;
    while (win && win.frameElement) {
      var fr = win.frameElement.getBoundingClientRect();
      x += fr.left + win.frameElement.clientLeft;
      y += fr.top + win.frameElement.clientTop;
      win = win.frameElement.ownerDocument.defaultView;
    }
    return { x: x, y: y, width: r.width, height: r.height };
  }

  // The element under a top-viewport point, through iframes and open shadow roots.
  function deepHit(x, y) {
    var doc = document, ox = 0, oy = 0, el = null;
    for (var guard = 0; guard < 20; guard++) {
      el = doc.elementFromPoint(x - ox, y - oy);
      while (el && el.shadowRoot) {
        var inner = el.shadowRoot.elementFromPoint(x - ox, y - oy);
        if (!inner || inner === el) break;
        el = inner;
      }
      if (el && (el.tagName === "IFRAME" || el.tagName === "FRAME")) {
        var sub = null;
        try { sub = el.contentDocument; } catch (e) { sub = null; }
        if (!sub) return el;
        var fr = el.getBoundingClientRect();
        ox += fr.left + el.clientLeft; oy += fr.top + el.clientTop;
        doc = sub;
        continue;
      }
      return el;
    }
    return el;
  }

  function contains(outer, inner) {
    for (var n = inner; n; ) {
      if (n === outer) return true;
      if (n.parentNode) n = n.parentNode;
      else if (n instanceof ShadowRoot) n = n.host;
      else return false;
    }
    return false;
  }

  function info(el) {
    var form = el.form || (el.closest && el.closest("form"));
    var control = standsFor(el);  // a label standing for its concealed checkbox: the box's state
    var type = ((control || el).getAttribute("type") || "").toLowerCase();
    var isSubmit = (el.tagName === "BUTTON" && (type === "" || type === "submit") && !!form) ||
                   (el.tagName === "INPUT" && (type === "submit" || type === "image"));
    return {
      tag: el.tagName.toLowerCase(), role: roleOf(el), label: labelOf(el), selector: fullSelector(el),
      visible: isVisible(el), disabled: !!el.disabled || el.getAttribute("aria-disabled") === "true",
      href: el.href ? String(el.href) : "", formAction: form ? String(form.action || "") : "",
      isSubmit: isSubmit, type: type, checked: !!(control || el).checked,
      // A password's characters never leave the page.
      value: el.value === undefined || String(el.type).toLowerCase() === "password" ? "" : String(el.value),
      editable: el.tagName === "INPUT" || el.tagName === "TEXTAREA" || !!el.isContentEditable,
      inFrame: el.ownerDocument !== document
    };
  }

  // Every root to scan: the document, same-origin iframes, open shadow roots (document order).
  function collectRoots(root, out, depth) {
    out.push(root);
    if (depth > 6) return;
    var all = root.querySelectorAll("*");
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.shadowRoot) collectRoots(el.shadowRoot, out, depth + 1);
      if (el.tagName === "IFRAME" || el.tagName === "FRAME") {
        var sub = null;
        try { sub = el.contentDocument; } catch (e) { sub = null; }
        if (sub && sub.documentElement) collectRoots(sub, out, depth + 1);
      }
    }
  }

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
    var sheets = [];
    try {
      sheets = Array.prototype.slice.call(root.styleSheets || []).concat(Array.prototype.slice.call(root.adoptedStyleSheets || []));
    } catch (e) { return []; }
    var subjects = new Set(), seen = 0;
    function walk(rules) {
      for (var i = 0; rules && i < rules.length && seen < HOVER_RULES_MAX; i++) {
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
      var rules = null;
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

  // -- names for icons ------------------------------------------------------------------------------
  var HAS_WORD = /\p{L}/u;  // a letter of any script: the text says something by itself
  var CLASS_NOISE = { icon: 1, icons: 1, ico: 1, btn: 1, button: 1, fa: 1, fas: 1, far: 1, fal: 1, fab: 1, solid: 1,
    regular: 1, light: 1, material: 1, symbols: 1, outlined: 1, rounded: 1, glyphicon: 1, bi: 1, mdi: 1, svg: 1, js: 1,
    is: 1, has: 1, active: 1, open: 1, on: 1, off: 1, sm: 1, md: 1, lg: 1, xl: 1, xs: 1, clickable: 1, pointer: 1,
    link: 1, item: 1, action: 1, actions: 1, control: 1, wrapper: 1, container: 1, inner: 1, outer: 1, small: 1,
    large: 1, big: 1, primary: 1, secondary: 1, default: 1, round: 1, flat: 1, ghost: 1, text: 1, label: 1, the: 1,
    and: 1, hover: 1, focus: 1, selected: 1, disabled: 1, hidden: 1, visible: 1, left: 1, right: 1, top: 1, bottom: 1,
    ui: 1, el: 1, component: 1, widget: 1, toggle: 1 };

  // Words from class names, the last resort for an icon with no text and no name ("icon-trash":
  // "trash"); at most two.
  function classWords(el) {
    var sources = [el].concat(Array.prototype.slice.call(el.querySelectorAll ? el.querySelectorAll("i, span, svg, use") : [], 0, 3));
    var words = [];
    for (var s = 0; s < sources.length && words.length < 2; s++) {
      var n = sources[s];
      var cls = (typeof n.className === "string" ? n.className : (n.getAttribute && n.getAttribute("class")) || "");
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

  // -- click_text: the element that shows some words --------------------------------------------
  function normText(s) { return String(s || "").replace(/\s+/g, " ").trim().toLowerCase(); }

  // The smallest clickable element around ``el``: a control, an element with a handler, a label,
  // else the outermost element of its pointer group (``clickable`` true), else ``el`` itself.
  function clickableAround(el) {
    var group = null;
    for (var n = el, up = 0; n && n.nodeType === 1 && up < 12; n = n.parentElement, up++) {
      if (NOT_CONTROLS[n.tagName]) break;
      if (matchesSafe(n, CONTROL_SEL) || n.tagName === "LABEL") return { el: n, clickable: true };
      var pointer = !!POINTING[getComputedStyle(n).cursor];
      if (scripted(n)) {
        if (pointer) return { el: n, clickable: true };
        // Below a delegated handler: its pointer group; the handler's container itself (a
        // framework's root) is not what the words are on.
        if (group || !isContainer(n)) return { el: group || n, clickable: true };
        break;
      }
      if (pointer) group = n;
      else if (group) break;
    }
    return { el: group || el, clickable: !!group };
  }

  // Whether something else covers the element's centre (a dialog's backdrop over the page).
  function covered(el) {
    var rect = topRect(el);
    var x = rect.x + rect.width / 2, y = rect.y + rect.height / 2;
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) return false;
    var hit = deepHit(x, y);
    return !!hit && !(hit === el || contains(el, hit) || contains(hit, el));
  }

  // The visible elements showing ``text`` (its words, an aria-label, a title, an image's alt, a
  // button's value): the ones whose whole text it is first, then those containing it; in each, the
  // clickable ones (not plain text) first, then the ones nothing covers, then in page order. ``nth`` (1-based) picks one: its selector, role
  // and label, and how many there are.
  J.findText = function (text, nth) {
    var want = normText(text);
    if (!want) return { ok: false, error: "no_text", count: 0 };
    var roots = [];
    collectRoots(document, roots, 0);
    var hits = [], best = new Map(), order = 0;
    function hit(el, exact) {
      if (!el || !isVisible(el)) return;
      var around = clickableAround(el), target = around.el;
      var known = best.get(target);
      if (known) { if (exact) known.exact = true; return; }
      var h = { el: target, exact: exact, clickable: around.clickable, order: order++ };
      best.set(target, h);
      hits.push(h);
    }
    for (var r = 0; r < roots.length; r++) {
      var root = roots[r], top = root.body || root;
      if (!top) continue;
      var walker = (root.ownerDocument || root).createTreeWalker(top, NodeFilter.SHOW_TEXT);
      for (var node = walker.nextNode(); node; node = walker.nextNode()) {
        var parent = node.parentElement;
        if (!parent || NOT_CONTROLS[parent.tagName] || parent.id === HIGHLIGHT_ID) continue;
        if (normText(node.data).indexOf(want) < 0) continue;
        hit(parent, normText(parent.innerText) === want);
      }
      var named = root.querySelectorAll("[aria-label], [title], img[alt], input[type=submit], input[type=button], input[type=reset]");
      for (var i = 0; i < named.length; i++) {
        var el = named[i];
        var name = normText(el.getAttribute("aria-label") || el.getAttribute("title") || el.getAttribute("alt") ||
                            (el.tagName === "INPUT" ? el.value : ""));
        if (name && name.indexOf(want) >= 0) hit(el, name === want);
      }
    }
    if (!hits.length) {
      // Words split over elements ("Invoice <b>1042</b>"): the deepest elements whose text holds them.
      for (var q = 0; q < roots.length; q++) {
        var stack = [roots[q].body || roots[q]];
        while (stack.length) {
          var box = stack.pop(), deeper = false;
          if (!box || !box.children) continue;
          for (var k = 0; k < box.children.length; k++) {
            var child = box.children[k];
            if (NO_WALK[child.tagName]) continue;
            if (normText(child.textContent).indexOf(want) >= 0) { stack.push(child); deeper = true; }
          }
          if (!deeper && box.nodeType === 1 && normText(box.innerText).indexOf(want) >= 0) hit(box, normText(box.innerText) === want);
        }
      }
    }
    for (var c = 0; c < hits.length; c++) hits[c].covered = covered(hits[c].el);
    hits.sort(function (a, b) {
      return (b.exact - a.exact) || (b.clickable - a.clickable) || (a.covered - b.covered) || (a.order - b.order);
    });
    nth = Math.max(1, parseInt(nth, 10) || 1);
    if (nth > hits.length) return { ok: false, error: "no_text", count: hits.length };
    var chosen = hits[nth - 1].el;
    return { ok: true, selector: fullSelector(chosen), role: roleOf(chosen), label: labelOf(chosen),
             exact: hits[nth - 1].exact, count: hits.length,
             others: hits.slice(0, 6).map(function (h) { return labelOf(h.el) + nearWords(h.el); }) };
  };

  // " (in: the words around it)", to tell matches with the same words apart; "" when nothing differs.
  function nearWords(el) {
    var own = normText(el.innerText || el.textContent);
    for (var n = el.parentElement, up = 0; n && up < 4 && !/^(BODY|HTML)$/.test(n.tagName); n = n.parentElement, up++) {
      var around = clip(n.innerText || "", 10000);
      var rest = clip(own ? around.replace(new RegExp(own.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"), " ") : around, 40);
      if (rest) return " (in: " + rest + ")";
    }
    return "";
  }

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
    var toggles = document.querySelectorAll("[aria-expanded=true][aria-controls], [aria-expanded=true][aria-owns]");
    for (var i = 0; i < toggles.length && out.length < 20; i++) {
      var ids = ((toggles[i].getAttribute("aria-controls") || "") + " " +
                 (toggles[i].getAttribute("aria-owns") || "")).split(/\s+/);
      for (var k = 0; k < ids.length; k++) {
        var box = ids[k] ? document.getElementById(ids[k]) : null;
        if (box && isVisible(box) && floatsOver(box, floatCache)) out.push(box);
      }
    }
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
        if (o.selected) chosen.push(clip(o.text, 40));
        if (options.length < 12) options.push(clip(o.text, 30) + (o.disabled ? " (unavailable)" : ""));
      }
      if (chosen.length) s.value = chosen.join(", ");
      s.options = options;
      s.optionCount = el.options.length;
    } else if ((tag === "TEXTAREA" || (tag === "INPUT" && !NO_VALUE_TYPES[type])) && el.value) {
      // A password's characters never leave the page: the model is told the field is filled.
      s.value = type === "password" ? "(filled)" : clip(el.value, 40);
    } else if (el.hasAttribute("aria-valuenow") || el.hasAttribute("aria-valuetext")) {
      // A custom slider or spinner says its value the ARIA way.
      s.value = clip(el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow"), 40);
    }
    return s;
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
    var scripted = [], containers = new Set(), hovers = new Set();
    for (var sr = 0; sr < roots.length; sr++) {
      var got = scriptedIn(roots[sr], taken, hovers);
      candidates += got.found.length;
      scripted.push(got.found);
      for (var g = 0; g < got.pointers.length; g++) {
        for (var up = got.pointers[g].parentElement; up && !containers.has(up); up = up.parentElement) containers.add(up);
      }
    }
    for (var sr2 = 0; sr2 < roots.length; sr2++) {
      var found = scripted[sr2], lo0 = segments[sr2], hi0 = segments[sr2 + 1];
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
  };

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

  // The prices the page shows, each with what tells the product's current price from the others
  // (core/tools/browser/product_page.py weighs them): ``text`` (cents in a superscript joined as
  // decimals), ``struck`` (s/del/strike or a computed line-through), ``h1`` and ``buy`` (pixels
  // to the main heading and to the product's buy button, null without one), ``size`` (font size in
  // px: the current price is the largest), ``main`` (inside the smallest block holding both the
  // heading and the buy button), ``zone`` ("" or where else it is: "chrome" for the site's header,
  // nav, footer or aside, "dialog", "fixed" for a bar pinned to the window, "card" for another
  // product's tile or a related-products block), ``before``/``after`` (the words next to it in its
  // block, cut at the neighbouring prices, which show as "¤"). Prices only a screen reader gets
  // (a 1-px clip, off the page) are left out.
  var PRICE_CUR = "(?:US\\$|C\\$|A\\$|R\\$|[$£€¥￥₹₩₽₺円]|\\b(?:USD|EUR|GBP|JPY|PLN|CHF|SEK|NOK|DKK|CZK|CAD|AUD)\\b|zł|Kč|\\bkr\\b)";
  // Digits grouped by threes ("1 299,99", "1.234,56", "12,800", "1'299"), then cents or a dash ("149,-").
  var PRICE_NUM = "\\d+(?:[.,'’\\u00a0\\u202f\\u2009 ]\\d{3})*(?:[.,]\\d{1,2})?(?:[.,][-–]{1,2})?";
  // A number then a sign only when no digit follows ("Only 3 $5" is $5, not "3 $").
  var PRICE_SRC = PRICE_CUR + "\\s?" + PRICE_NUM + "|" + PRICE_NUM + "\\s?" + PRICE_CUR + "(?!\\s?\\d)";
  var BUY_WORDS = /add to (cart|bag|basket|trolley)|buy (it |now)|^\s*(add|buy|kaufen|acheter|comprar|compra|kopen|kup)\s*$|in den (warenkorb|einkaufswagen)|ajouter au panier|añadir a la cesta|añadir al carrito|aggiungi al carrello|in (de )?winkelwagen|dodaj do koszyka|カートに入れる|かごに入れる|カートに追加|pre-?order|vorbestellen|précommander|reservar|preordina|notify me|email me when|benachrichtig|m'alerter|me prévenir|avísame|avvisami|houd me op de hoogte|powiadom mnie|再入荷/i;
  var CHROME_ZONE = "header, nav, footer, aside, [role=banner], [role=navigation], [role=contentinfo], [role=complementary]";
  var DIALOG_ZONE = "dialog, [role=dialog], [role=alertdialog], [aria-modal=true]";
  var CARD_WORDS = /related|recommend|similar|carousel|slider|swiper|slick|upsell|cross-?sell|also|recently|sponsor|\breco|shelf/i;
  var INLINE_DISPLAY = { inline: 1, "inline-block": 1, contents: 1, "table-cell": 1, "inline-flex": 1, ruby: 1 };

  function priceTexts() {
    var body = document.body;
    if (!body) return [];
    // Two global expressions: one walks a text node's prices while the other reads the context.
    var priceRe = new RegExp(PRICE_SRC, "g"), allRe = new RegExp(PRICE_SRC, "g"), oneRe = new RegExp(PRICE_SRC);
    var h1 = null, h1s = document.querySelectorAll("h1");
    for (var i = 0; i < h1s.length && !h1; i++) {
      if (isVisible(h1s[i]) && !h1s[i].closest(CHROME_ZONE)) h1 = h1s[i];
    }
    h1 = h1 || h1s[0] || null;
    function outside(zone) { return zone && !(h1 && zone.contains(h1)); }
    // Whether the element sits in a bar pinned to the window (cached: siblings share ancestors).
    var pinCache = new Map();
    function pinned(el) {
      if (!el || el === body || el.nodeType !== 1) return false;
      if (pinCache.has(el)) return pinCache.get(el);
      var fixed = getComputedStyle(el).position === "fixed";
      var pin = fixed ? !(h1 && el.contains(h1)) : pinned(el.parentElement);
      pinCache.set(el, pin);
      return pin;
    }
    // Pixels between two boxes (0 when they touch); a heading's box is its text's, not its full width.
    function boxOf(el) {
      if (el !== h1) return el.getBoundingClientRect();
      var r = document.createRange();
      r.selectNodeContents(el);
      return r.getBoundingClientRect();
    }
    function distance(r, el) {
      if (!el) return null;
      var q = boxOf(el);
      var dx = Math.max(0, q.left - r.right, r.left - q.right), dy = Math.max(0, q.top - r.bottom, r.top - q.bottom);
      return Math.round(Math.sqrt(dx * dx + dy * dy));
    }
    // How close a button sits to the heading in the tree: the depth of their common ancestor.
    var h1Depth = new Map();
    if (h1) {
      var chain = [];
      for (var anc = h1; anc; anc = anc.parentElement) chain.push(anc);
      for (var ci = 0; ci < chain.length; ci++) h1Depth.set(chain[ci], chain.length - ci);
    }
    function kinship(el) {
      for (var n = el; n; n = n.parentElement) if (h1Depth.has(n)) return h1Depth.get(n);
      return 0;
    }
    // The product's own button (buy, pre-order or notify-me): the visible one sharing the deepest
    // block with the heading (a carousel's buttons may be nearer in pixels), then the nearest;
    // never in the site's chrome, a dialog or a pinned bar.
    var buy = null, best = [-1, Infinity];
    var buttons = document.querySelectorAll("button, input[type=submit], input[type=button], [role=button]");
    for (var b = 0; b < buttons.length; b++) {
      // Cheap tests first: a listing page has a buy button on each of its thousands of tiles.
      var bt = buttons[b], label = (bt.textContent || bt.value || "").replace(/\s+/g, " ").trim();
      if (!label || label.length > 60 || !BUY_WORDS.test(label)) continue;
      var kin = kinship(bt);
      if (kin < best[0]) continue;
      var br = visibleRect(bt);
      if (!br || outside(bt.closest(CHROME_ZONE)) || outside(bt.closest(DIALOG_ZONE)) || pinned(bt)) continue;
      var key = [kin, h1 ? distance(br, h1) : br.top];
      if (key[0] > best[0] || (key[0] === best[0] && key[1] < best[1])) { best = key; buy = bt; }
    }
    var main = null;
    if (h1 && buy) {
      for (main = h1.parentElement; main && !main.contains(buy); main = main.parentElement) { /* up */ }
      if (main === body || main === document.documentElement) main = null;
    }
    function struck(el) {
      for (var n = el, depth = 0; n && n.nodeType === 1 && depth < 8; n = n.parentElement, depth++) {
        if (/^(S|DEL|STRIKE)$/.test(n.tagName)) return true;
        var cs = getComputedStyle(n);
        if ((cs.textDecorationLine || cs.textDecoration || "").indexOf("line-through") >= 0) return true;
      }
      return false;
    }
    // Another product's tile: an item repeated by its siblings (same tag and class) that holds a
    // link, an image or a button; or a block named for related products. Only outside the heading.
    function zoneOf(el) {
      if (outside(el.closest(DIALOG_ZONE))) return "dialog";
      if (outside(el.closest(CHROME_ZONE))) return "chrome";
      if (pinned(el)) return "fixed";
      for (var n = el; n && n !== body && n !== main; n = n.parentElement) {
        if (h1 && n.contains(h1)) break;
        if (CARD_WORDS.test((n.getAttribute("class") || "") + " " + (n.id || ""))) return "card";
        var p = n.parentElement, same = 0;
        if (!p || !n.querySelector("a[href], img, button")) continue;
        for (var s = p.firstElementChild; s && same < 2; s = s.nextElementSibling) {
          if (s !== n && s.tagName === n.tagName && s.className === n.className) same++;
        }
        if (same >= 1 && (same >= 2 || /^(LI|TR|ARTICLE)$/.test(n.tagName))) return "card";
      }
      return "";
    }
    function blockOf(el) {
      for (var n = el, depth = 0; n && n !== body && depth < 6; n = n.parentElement, depth++) {
        if (!INLINE_DISPLAY[getComputedStyle(n).display]) return n;
      }
      return el;
    }
    function squash(s) { return s.replace(/\s+/g, " "); }
    // The words between the previous price in the block and this one (and this one and the next).
    function context(block, range) {
      var r = document.createRange(), before = "", after = "";
      try {
        r.setStart(block, 0); r.setEnd(range.startContainer, range.startOffset); before = squash(r.toString());
        r.setStart(range.endContainer, range.endOffset); r.setEnd(block, block.childNodes.length);
        after = squash(r.toString());
      } catch (e) { /* the price is not inside the block */ }
      var all = before.match(allRe);
      if (all) {
        var last = all[all.length - 1];
        before = "¤" + before.slice(before.lastIndexOf(last) + last.length);
      }
      var next = oneRe.exec(after);
      if (next) after = after.slice(0, next.index) + "¤";
      return [before.slice(-60), after.slice(0, 40)];
    }
    function blockAround(el) {
      var block = blockOf(el);
      return block === el && el.parentElement && el.parentElement !== body ? blockOf(el.parentElement) : block;
    }
    // A price split over elements ("$" + "1,249" + <sup>00</sup>): its text nodes joined, with
    // superscript cents after digits as decimals.
    function joined(el) {
      var parts = [], w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), size = 0;
      for (var n = w.nextNode(); n; n = w.nextNode()) {
        var t = n.data.replace(/\s+/g, " ").trim(), pe = n.parentElement;
        if (!t || !pe) continue;
        var cs = getComputedStyle(pe);
        size = Math.max(size, parseFloat(cs.fontSize) || 0);
        var prev = parts.length ? parts[parts.length - 1] : "";
        if ((pe.tagName === "SUP" || cs.verticalAlign === "super") && /^\d{2}$/.test(t) && /\d$/.test(prev)) t = "." + t;
        parts.push(t);
      }
      return { text: parts.join(""), size: size };
    }
    var found = [], seen = new Set(), scanned = 0;
    function add(text, anchor, rect, size, before, after) {
      if (!rect || rect.width <= 2 || rect.height <= 2 || rect.right < 0 || rect.bottom < 0 ||
          rect.left > Math.max(document.documentElement.scrollWidth, window.innerWidth)) return;
      var item = { text: clip(text, 60), struck: struck(anchor), h1: distance(rect, h1), buy: distance(rect, buy),
                   size: Math.round(size), main: !!(main && main.contains(anchor)), zone: zoneOf(anchor),
                   before: before, after: after };
      found.push(item);
    }
    var walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    // A product page shows a few dozen prices; a listing's thousands need not all be measured.
    for (var node = walker.nextNode(); node && scanned < 4000 && found.length < 120; node = walker.nextNode()) {
      var data = node.data, parent = node.parentElement;
      if (!/\d/.test(data) || !parent || /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|OPTION|TEXTAREA)$/.test(parent.tagName)) continue;
      scanned++;
      if (!isVisible(parent)) continue;
      priceRe.lastIndex = 0;
      var m, any = false;
      while ((m = priceRe.exec(data))) {
        any = true;
        var r = document.createRange();
        r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
        var c = context(blockOf(parent), r);
        add(m[0], parent, r.getBoundingClientRect(), parseFloat(getComputedStyle(parent).fontSize) || 0, c[0], c[1]);
      }
      if (any) continue;
      // No whole price in this text: the smallest element around it that holds one (a split price).
      for (var el = parent, up = 0; el && el !== body && up < 3; el = el.parentElement, up++) {
        if ((el.textContent || "").length > 40) break;
        if (!oneRe.test(el.textContent)) continue;
        if (!seen.has(el)) {
          seen.add(el);
          var j = joined(el), around = document.createRange();
          around.setStartBefore(el); around.setEndAfter(el);
          var ce = context(blockAround(el), around);
          if (oneRe.test(j.text)) add(j.text, el, visibleRect(el), j.size, ce[0], ce[1]);
        }
        break;
      }
    }
    // The most telling first: inside the product's block, then nearest the heading.
    found.sort(function (a, b) {
      return (b.main - a.main) || ((a.h1 === null ? 1e9 : a.h1) - (b.h1 === null ? 1e9 : b.h1));
    });
    return found.slice(0, 40);
  }

  var SKIP_TAGS = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, SVG: 1, IFRAME: 1 };

  // The element's HTML, at most about ``budget`` characters: whole children while they fit,
  // descending into the first one that does not. Long pages are read from the top, as a person would.
  function cappedHtml(el, budget, state) {
    var full = el.outerHTML;
    if (full.length <= budget) return full;
    state.truncated = true;
    var tag = el.tagName.toLowerCase();
    var out = "<" + tag + ">", left = budget - out.length - tag.length - 3;
    for (var c = el.firstChild; c && left > 0; c = c.nextSibling) {
      var piece;
      if (c.nodeType === 3) piece = c.textContent.replace(/&/g, "&amp;").replace(/</g, "&lt;");
      else if (c.nodeType === 1 && !SKIP_TAGS[c.tagName.toUpperCase()]) piece = cappedHtml(c, left, state);
      else continue;
      if (piece.length > left) piece = piece.slice(0, left);
      out += piece; left -= piece.length;
    }
    return out + "</" + tag + ">";
  }

  // Only what structured-data parsers read: the head (meta, Open Graph, JSON-LD), JSON-LD in the
  // body, and the outermost microdata items.
  function structuredHtml() {
    var parts = ["<html><head>", document.head ? document.head.innerHTML : "", "</head><body>"];
    var size = 0;
    var nodes = document.querySelectorAll("body script[type='application/ld+json'], [itemscope]:not([itemprop])");
    for (var i = 0; i < nodes.length && size < 300000; i++) {
      var h = nodes[i].outerHTML;
      parts.push(h); size += h.length;
    }
    parts.push("</body></html>");
    return parts.join("");
  }

  // Tags whose content never reaches the reader (the head's <script type=application/ld+json> is read
  // separately by structuredHtml()); dropped from the copy to keep it small.
  var DROP_TAGS = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, IFRAME: 1, OBJECT: 1, EMBED: 1 };

  // Whether the browser hides this element: the hidden attribute, display:none, visibility:hidden, or
  // aria-hidden on a small part (pages put aria-hidden on the whole page behind an open dialog, so a
  // large aria-hidden part is kept).
  function hiddenToReader(el) {
    if (el.hasAttribute("hidden")) return true;
    if (el.getAttribute("aria-hidden") === "true" && (el.textContent || "").length < 400) return true;
    var cs = getComputedStyle(el);
    if (cs.display === "none") return true;
    // Pages hide their whole content with visibility until their scripts run (and show it when
    // they do): only a small part with visibility:hidden is taken as hidden, and only where the
    // hiding starts (the small children of a large hidden part inherit its visibility).
    if (cs.visibility !== "hidden" || (el.textContent || "").length >= 400) return false;
    var parent = el.parentElement;
    return !parent || getComputedStyle(parent).visibility !== "hidden";
  }

  // A copy of the whole rendered document (head included: the extractors read title and meta) with
  // what the browser hides and what is never read removed. The page itself is not touched. The copy
  // is made in a document of its own, inert (nothing loads or runs there): moving 10,000 nodes out of
  // the live page into one later would cost 300 ms.
  function visibleCopy(doc) {
    var inert = doc.implementation.createHTMLDocument("");
    var live = doc.documentElement, copy = inert.importNode(live, true);
    inert.replaceChild(copy, inert.documentElement);
    var body = doc.body;
    // Walk the live tree and the copy side by side (same shape: cloned synchronously just above).
    var stack = [[live, copy]];
    while (stack.length) {
      var pair = stack.pop(), a = pair[0], b = pair[1];
      var ak = a.children, bk = b.children, drop = [];
      for (var i = 0; i < ak.length && i < bk.length; i++) {
        var tag = ak[i].tagName.toUpperCase();
        if (DROP_TAGS[tag] || (body && body.contains(ak[i]) && hiddenToReader(ak[i]))) drop.push(bk[i]);
        else if (tag !== "HEAD") stack.push([ak[i], bk[i]]);
      }
      for (var d = 0; d < drop.length; d++) drop[d].remove();
    }
    return copy;
  }

  // That copy as HTML (``copy``: one visibleCopy() already made).
  function wholeHtml(doc, copy) {
    return "<!DOCTYPE html>" + (copy || visibleCopy(doc)).outerHTML;
  }

  // Mozilla's Readability (vendor/Readability.js, Firefox's reader view, loaded ahead of this library
  // in the same script as __jawadReader) on a visible copy: the article's HTML and metadata, or null.
  // Readability rewrites the document it reads, so it gets the copy's inert document, never the page.
  var READER_SMALL_PAGE = 3000, READER_MAX_ELEMENTS = 30000;  // elements of the visible copy

  function readerArticle(copy) {
    if (typeof __jawadReader === "undefined") return null;
    var started = Date.now();
    try {
      var doc = copy.ownerDocument;
      var head = doc.head || doc.documentElement;
      if (!doc.querySelector("base[href]")) {  // links resolve against the page, not about:blank
        var base = doc.createElement("base");
        base.href = String(location.href);
        head.insertBefore(base, head.firstChild);
      }
      // The copy has no scripts; Readability reads title, byline and site name from JSON-LD too.
      var ld = document.querySelectorAll("script[type='application/ld+json']");
      for (var i = 0; i < ld.length && i < 20; i++) head.appendChild(doc.importNode(ld[i], true));
      var readerable = __jawadReader.isProbablyReaderable(doc);
      var out = { readerable: readerable, ms: 0 };
      // Readability's time grows faster than the page (1 s on 10,000 elements in one list): it reads
      // pages that look like articles (as Firefox offers its reader view) and small pages, where it
      // costs little; trafilatura reads the others.
      var size = doc.getElementsByTagName("*").length;
      if (!readerable && size > READER_SMALL_PAGE) {
        out.skipped = size; out.ms = Date.now() - started;
        return out;
      }
      var a = new __jawadReader.Readability(doc, { maxElemsToParse: READER_MAX_ELEMENTS }).parse();
      out.ms = Date.now() - started;
      if (a) {
        out.content = a.content || ""; out.title = a.title || ""; out.byline = a.byline || "";
        out.excerpt = a.excerpt || ""; out.siteName = a.siteName || ""; out.lang = a.lang || "";
      }
      return out;
    } catch (e) {
      return { error: String(e && e.message || e), ms: Date.now() - started };
    }
  }

  function contentRoot() {
    var candidates = document.querySelectorAll("main, [role=main], article");
    for (var i = 0; i < candidates.length; i++) {
      if (isVisible(candidates[i]) && (candidates[i].innerText || "").length > 200) return candidates[i];
    }
    return document.body || document.documentElement;
  }

  // Above this size the extractor's time grows past read_page's budget (benchmarks/bench_browser.py):
  // such pages are read from their content root, from the top, as before.
  var WHOLE_HTML_MAX = 300000;

  J.snapshot = function (opts) {
    opts = opts || {};
    var state = { truncated: false };
    var copy = visibleCopy(document);
    var html = wholeHtml(document, copy);
    if (html.length > (opts.maxWholeHtml || WHOLE_HTML_MAX)) {
      var root = contentRoot();
      html = "<html><head>" + (document.head ? document.head.innerHTML : "") + "</head><body>" +
             (root ? cappedHtml(root, opts.maxContentHtml || 40000, state) : "") + "</body></html>";
    }
    var frames = [];
    var iframes = document.querySelectorAll("iframe, frame");
    for (var i = 0; i < iframes.length && frames.length < 10; i++) {
      var sub = null;
      try { sub = iframes[i].contentDocument; } catch (e) { sub = null; }
      if (sub && sub.body && isVisible(iframes[i])) {
        frames.push({ url: String(sub.location.href), selector: fullSelector(iframes[i]),
                      html: scrubPasswords(cappedHtml(sub.body, 20000, { truncated: false })) });
      }
    }
    var shadowText = [];
    var hosts = document.querySelectorAll("*");
    for (var h = 0; h < hosts.length && shadowText.length < 20; h++) {
      if (hosts[h].shadowRoot) {
        var st = clip(hosts[h].shadowRoot.textContent || "", 2000);
        if (st) shadowText.push(st);
      }
    }
    var h1 = document.querySelector("h1");
    var visibleText = document.body ? document.body.innerText : "";
    return {
      url: String(location.href), title: document.title || "", lang: document.documentElement.lang || "",
      html: scrubPasswords(html), htmlTruncated: state.truncated, structuredHtml: scrubPasswords(structuredHtml()),
      frames: frames, shadowText: shadowText, h1: h1 ? clip(h1.innerText, 200) : "",
      priceTexts: priceTexts(), text: visibleText.slice(0, 20000), textLength: visibleText.length,
      elements: J.elements(opts.maxElements || 150),
      article: opts.article === false ? null : scrubArticle(readerArticle(copy)),
      // After the elements: each entry of an open popup names its [n] in their list.
      popups: popupReport(), readyState: document.readyState
    };
  };

  J.describe = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var d = info(r.el);
    d.ok = true; d.refound = r.refound;
    return d;
  };

  // Scrolls the element to the centre and says where its centre is and whether it is on top there.
  J.prepare = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var el = r.el;
    if (!isVisible(el)) return { ok: false, error: "hidden" };
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    var rect = topRect(el);
    var cx = rect.x + rect.width / 2, cy = rect.y + rect.height / 2;
    var hit = deepHit(cx, cy);
    var d = info(el);
    d.ok = true; d.x = cx; d.y = cy; d.rect = rect; d.refound = r.refound;
    // A label over its own control (a styled checkbox) takes the click for it.
    var label = hit && hit.closest ? hit.closest("label") : null;
    d.onTop = !!hit && (hit === el || contains(el, hit) || (!!label && label.control === el));
    if (hit && !d.onTop) d.cover = coverOf(hit, el);
    d.viewport = { width: window.innerWidth, height: window.innerHeight };
    return d;
  };

  J.jsClick = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    r.el.click();
    return { ok: true };
  };

  J.focus = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    r.el.focus();
    var active = r.el.ownerDocument.activeElement;
    var root = r.el.getRootNode();
    return { ok: true, focused: active === r.el || (root instanceof ShadowRoot && root.activeElement === r.el) };
  };

  // -- keys and pointer (press_key, type_text, hover, drag_and_drop, upload_file) -----------------

  // The element that has the keyboard focus, through iframes and open shadow roots (null: none).
  function deepActive() {
    var el = document.activeElement;
    for (var guard = 0; el && guard < 20; guard++) {
      if (el.shadowRoot && el.shadowRoot.activeElement) { el = el.shadowRoot.activeElement; continue; }
      if (el.tagName === "IFRAME" || el.tagName === "FRAME") {
        var sub = null;
        try { sub = el.contentDocument; } catch (e) { sub = null; }
        if (sub && sub.activeElement && sub.activeElement !== sub.body) { el = sub.activeElement; continue; }
      }
      break;
    }
    var doc = el && el.ownerDocument;
    return el && doc && el !== doc.body && el !== doc.documentElement ? el : null;
  }

  // What has the keyboard focus and what it holds now; a password field's value never leaves the page.
  J.focused = function () {
    var el = deepActive();
    if (!el) return { ok: true, focused: false };
    var d = info(el);
    var field = el.tagName === "INPUT" || el.tagName === "TEXTAREA";
    var value = field ? String(el.value || "") : el.isContentEditable ? (el.innerText || "") : "";
    d.secret = d.type === "password";
    d.length = value.length;
    d.value = d.secret ? "" : clip(value, 300);
    d.ok = true; d.focused = true;
    return d;
  };

  // Where the element's centre is in the top viewport, without scrolling (a drop target must stay put).
  J.pointOf = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    if (!isVisible(r.el)) return { ok: false, error: "hidden" };
    var rect = topRect(r.el);
    var cx = rect.x + rect.width / 2, cy = rect.y + rect.height / 2;
    var hit = deepHit(cx, cy);
    return { ok: true, x: cx, y: cy, rect: rect, role: roleOf(r.el), label: labelOf(r.el),
             onTop: !!hit && (hit === r.el || contains(r.el, hit)),
             viewport: { width: window.innerWidth, height: window.innerHeight } };
  };

  // The boxes of the listed elements now in the top viewport, for the marked screenshot (``look``):
  // [{index, x, y, width, height}] in CSS pixels, and the viewport's size. No scrolling, no re-finding.
  J.markRects = function () {
    var out = [], w = window.innerWidth, h = window.innerHeight, refs = J.refs || [null];
    for (var i = 1; i < refs.length; i++) {
      var el = refs[i];
      if (!el || !el.isConnected || !isVisible(el)) continue;
      var r = topRect(el);
      if (r.width <= 0 || r.height <= 0 || r.x + r.width <= 0 || r.y + r.height <= 0 || r.x >= w || r.y >= h) continue;
      out.push({ index: i, x: r.x, y: r.y, width: r.width, height: r.height });
    }
    return { ok: true, rects: out, viewport: { width: w, height: h } };
  };

  // Whether the element is dragged with HTML drag and drop (draggable, or inside a draggable element).
  J.isHtmlDraggable = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var n = r.el.closest ? r.el.closest("[draggable=true]") : null;
    return { ok: true, draggable: !!n && n.draggable };
  };

  // HTML drag and drop from source to target with the events a browser sends, one DataTransfer shared.
  J.htmlDrag = function (source, target) {
    var a = resolve(source), b = resolve(target);
    if (a.error) return { ok: false, error: a.error };
    if (b.error) return { ok: false, error: b.error };
    var from = a.el.closest("[draggable=true]") || a.el, to = b.el;
    var win = from.ownerDocument.defaultView;
    var data = new win.DataTransfer();
    var ra = from.getBoundingClientRect(), rb = to.getBoundingClientRect();
    function fire(el, type, rect) {
      var ev = new win.DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: data,
                                         clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2 });
      return el.dispatchEvent(ev);
    }
    if (!fire(from, "dragstart", ra)) return { ok: true, dropped: false };
    fire(from, "drag", ra);
    fire(to, "dragenter", rb);
    var accepted = !fire(to, "dragover", rb);  // a drop target cancels dragover
    if (accepted) fire(to, "drop", rb);
    fire(from, "dragend", rb);
    return { ok: true, dropped: accepted };
  };

  // The file input of a target (the input, a label for one, or an element holding one) and what to
  // click to open its chooser: the input, or its visible label when the page hides the input.
  J.fileInput = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var el = r.el, input = null;
    if (el.tagName === "INPUT" && (el.type || "").toLowerCase() === "file") input = el;
    else if (el.tagName === "LABEL" && el.control && el.control.type === "file") input = el.control;
    else if (el.querySelector) input = el.querySelector("input[type=file]");
    if (!input) return { ok: false, error: "not_file_input" };
    if (input.disabled) return { ok: false, error: "disabled" };
    var click = isVisible(input) ? input : null;
    if (!click && input.labels) {
      for (var i = 0; i < input.labels.length && !click; i++) if (isVisible(input.labels[i])) click = input.labels[i];
    }
    if (!click && isVisible(el)) click = el;
    if (!click) return { ok: false, error: "hidden" };
    return { ok: true, click: fullSelector(click), label: labelOf(input) || labelOf(click),
             multiple: !!input.multiple, accept: input.accept || "", files: input.files ? input.files.length : 0,
             names: Array.prototype.map.call(input.files || [], function (f) { return f.name; }) };
  };

  function setNativeValue(el, value) {
    // Frameworks (React and the like) watch the prototype's setter, not the own property.
    var proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype :
                el.tagName === "SELECT" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    var desc = Object.getOwnPropertyDescriptor(proto, "value");
    var win = el.ownerDocument.defaultView;
    if (win && win !== window) {  // an iframe has its own prototypes
      var p2 = el.tagName === "TEXTAREA" ? win.HTMLTextAreaElement.prototype :
               el.tagName === "SELECT" ? win.HTMLSelectElement.prototype : win.HTMLInputElement.prototype;
      desc = Object.getOwnPropertyDescriptor(p2, "value") || desc;
    }
    if (desc && desc.set) desc.set.call(el, value); else el.value = value;
  }

  J.fill = function (target, text) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var el = r.el;
    if (!isVisible(el)) return { ok: false, error: "hidden" };
    if (el.disabled || el.readOnly) return { ok: false, error: "disabled" };
    var editable = el.tagName === "INPUT" || el.tagName === "TEXTAREA";
    if (!editable && !el.isContentEditable) return { ok: false, error: "not_editable" };
    el.scrollIntoView({ block: "center", behavior: "instant" });
    el.focus();
    var wanted = String(text);
    // A person typing stops at the field's maxlength; a script setting the value would not.
    var max = editable && typeof el.maxLength === "number" ? el.maxLength : -1;
    if (max >= 0 && wanted.length > max) text = wanted.slice(0, max);
    // A value out of a date, time, colour or number input's format is refused by the browser (left
    // empty), with a console warning; refused here the same way, without it.
    var format = el.tagName === "INPUT" ? VALUE_FORMATS[String(el.type).toLowerCase()] : null;
    if (format && !format.test(text)) text = "";
    if (editable) {
      setNativeValue(el, text);
    } else {
      el.textContent = text;
    }
    var Ev = el.ownerDocument.defaultView.Event;
    el.dispatchEvent(new Ev("input", { bubbles: true }));
    el.dispatchEvent(new Ev("change", { bubbles: true }));
    return readBack(el, wanted, r.refound);
  };

  // -- sturdy actions: values read back, elements found again, what an action changed, covers ----

  // The formats the browser takes in inputs with one (HTML's value sanitization algorithms).
  var NUMBER_FORMAT = /^-?(\d+(\.\d+)?|\.\d+)([eE][-+]?\d+)?$/;
  var VALUE_FORMATS = {
    date: /^\d{4,}-\d{2}-\d{2}$/, month: /^\d{4,}-\d{2}$/, week: /^\d{4,}-W\d{2}$/,
    time: /^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/,
    "datetime-local": /^\d{4,}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/,
    color: /^#[0-9a-fA-F]{6}$/, number: NUMBER_FORMAT, range: NUMBER_FORMAT
  };

  // The field's value after typing ``wanted``, as the page left it (it may refuse a value, cut it at
  // its maxlength or reformat it). A password's characters never leave the page: only their count
  // and whether they are the ones typed.
  function readBack(el, wanted, refound) {
    var editable = el.tagName === "INPUT" || el.tagName === "TEXTAREA";
    var now = editable ? String(el.value) : String(el.textContent || "");
    var kind = el.tagName === "INPUT" ? String(el.type || "text").toLowerCase() : el.tagName.toLowerCase();
    var out = { ok: true, hasForm: !!el.form, kind: kind, secret: kind === "password", length: now.length,
                typedLength: wanted.length, same: now === wanted, refound: !!refound,
                maxLength: editable && typeof el.maxLength === "number" ? el.maxLength : -1 };
    if (!out.secret) out.value = clip(now, 300);
    if (el.validity && !el.validity.valid && now) out.invalid = clip(el.validationMessage || "invalid", 160);
    if (kind === "range" || kind === "number") {
      out.min = el.getAttribute("min") || (kind === "range" ? "0" : "");
      out.max = el.getAttribute("max") || (kind === "range" ? "100" : "");
      out.step = el.getAttribute("step") || "";
    }
    return out;
  }

  // ``fill``'s read-back again, once the page has settled (a mask or a check may rewrite it late).
  J.fieldValue = function (target, wanted) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    return readBack(r.el, String(wanted), r.refound);
  };

  // The text around an element (its row, its card): the smallest ancestor, up to three levels, with
  // more words than the element's own label (a list's every "Delete" is told apart by its row).
  function nearText(el, label) {
    for (var n = el.parentElement, up = 0; n && up < 3; n = n.parentElement, up++) {
      var t = n.textContent || "";
      if (t.length > 400) break;
      t = t.replace(/\s+/g, " ").trim();
      if (t.length > (label || "").length + 8) return clip(t, 120);
    }
    return "";
  }

  // What each listed [n] was (role, label, tag, the text around it, where it was in its document),
  // so an element a re-render replaced, or one that moved, is found again by its description.
  function rememberRefs(items) {
    J.refInfo = [null];
    J.refound = {};
    for (var i = 0; i < items.length; i++) {
      var el = J.refs[items[i].index];
      if (!el) continue;
      var rect = el.getBoundingClientRect(), win = el.ownerDocument.defaultView || window;
      J.refInfo[items[i].index] = { role: items[i].role, label: items[i].label, tag: el.tagName,
        near: nearText(el, items[i].label), x: rect.left + win.scrollX, y: rect.top + win.scrollY };
    }
  }

  // The visible element most like the one listed as [index]: same tag, role, label and text around it
  // (its row); its place breaks ties. ``strict`` (the listed one is still there, hidden) needs text
  // around it. Null when there is none, or several alike with nothing to tell them apart.
  function refind(index, strict) {
    var meta = J.refInfo[index];
    if (!meta || !meta.label || (strict && !meta.near)) return null;
    var roots = [];
    collectRoots(document, roots, 0);
    var best = null, bestScore = -1, tie = false, old = J.refs[index];
    for (var r = 0; r < roots.length; r++) {
      var list = roots[r].querySelectorAll(meta.tag.toLowerCase());
      for (var i = 0; i < list.length; i++) {
        var el = list[i];
        if (el === old || (el.textContent || "").length > 2000) continue;
        if (roleOf(el) !== meta.role || !isVisible(el) || labelOf(el) !== meta.label) continue;
        // The text around it must be the same when there was some: "Delete" in another row is another.
        if (meta.near && nearText(el, meta.label) !== meta.near) continue;
        var score = 0;
        var rect = el.getBoundingClientRect(), win = el.ownerDocument.defaultView || window;
        if (Math.abs(rect.left + win.scrollX - meta.x) + Math.abs(rect.top + win.scrollY - meta.y) < 40) score += 1;
        if (score > bestScore) { best = el; bestScore = score; tie = false; }
        else if (score === bestScore) tie = true;
      }
    }
    return best && !tie ? best : null;
  }

  // What lies over an element at its centre: the dialog it belongs to (``modal``: the element is not
  // in it, so a person could not reach the element before closing it), else the overlay or element.
  function coverOf(hit, el) {
    var dialog = closestDeep(hit, DIALOG_SEL);
    if (dialog && !contains(dialog, el)) return { kind: "dialog", label: dialogName(dialog), modal: true };
    for (var n = hit, up = 0; n && n.nodeType === 1 && up < 6; n = n.parentElement, up++) {
      var pos = getComputedStyle(n).position;
      // A dialog's backdrop: the layer over the page that holds the dialog.
      var inner = pos === "fixed" || pos === "absolute" ? n.querySelector(DIALOG_SEL) : null;
      if (inner && !contains(inner, el) && isVisible(inner)) return { kind: "dialog", label: dialogName(inner), modal: true };
      if (pos === "fixed" || pos === "sticky") {
        return { kind: roleOf(n) === "CLICKABLE" ? n.tagName.toLowerCase() : roleOf(n).toLowerCase(),
                 label: ownLabel(n) || clip(n.innerText, 60), modal: false };
      }
    }
    var role = roleOf(hit);
    return { kind: role === "CLICKABLE" ? hit.tagName.toLowerCase() : role.toLowerCase(),
             label: ownLabel(hit) || clip(hit.innerText, 60), modal: false };
  }

  // Page HTML without the values of password inputs (a script may have put one in the value attribute):
  // read_page's content never carries a password's characters.
  function scrubPasswords(html) {
    return String(html || "").replace(/<input\b[^>]*>/gi, function (tag) {
      if (!/\btype\s*=\s*["']?password\b/i.test(tag)) return tag;
      return tag.replace(/\svalue\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, "");
    });
  }

  function scrubArticle(article) {
    if (article && article.content) article.content = scrubPasswords(article.content);
    return article;
  }

  // -- what an action changed: a fingerprint before it (changesMark) compared after it (changesSince):
  // elements that appeared or went (one re-rendered as its twin counts as neither), dialogs that
  // opened or closed, and new lines of text (a status message, a validation error).
  var mark = null;
  var CHANGES_LISTED = 5, NEW_LINES = 4;

  function visibleControls() {
    var roots = [], out = [];
    collectRoots(document, roots, 0);
    for (var r = 0; r < roots.length; r++) {
      var list = scriptedMatches(roots[r], CANDIDATES + ", " + SCRIPTED_SEL);
      for (var i = 0; i < list.length; i++) if (isVisible(list[i])) out.push(list[i]);
    }
    return out;
  }

  function openDialogs() {
    var found = document.querySelectorAll(DIALOG_SEL), out = [];
    for (var i = 0; i < found.length; i++) {
      if (found[i].getAttribute("aria-hidden") !== "true" && isVisible(found[i])) out.push(found[i]);
    }
    return out;
  }

  function pageLines() {
    var text = document.body ? document.body.innerText || "" : "";
    var out = [];
    text.split("\n").forEach(function (line) {
      line = line.replace(/\s+/g, " ").trim();
      if (line) out.push(line);
    });
    return out;
  }

  function dialogName(d) {
    var heading = d.querySelector("h1, h2, h3, h4, legend, [role=heading]");
    return ownLabel(d) || (heading ? clip(heading.textContent, 60) : "") || clip(d.innerText, 60);
  }

  // A dialog's words without its controls' labels (those are listed as new elements).
  function proseOf(box) {
    var parts = [], walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (var n = walker.nextNode(); n && parts.length < 60; n = walker.nextNode()) {
      var parent = n.parentElement;
      if (!parent || parent.closest("button, select, textarea, script, style, [role=button]")) continue;
      var t = n.data.replace(/\s+/g, " ").trim();
      if (t && isVisible(parent)) parts.push(t);
    }
    return parts.join(" ");
  }

  J.changesMark = function () {
    mark = { url: String(location.href), controls: new Set(visibleControls()), dialogs: openDialogs(),
             lines: new Set(pageLines()) };
    return { ok: true };
  };

  J.changesSince = function () {
    if (!mark) return { ok: true, fresh: true, url: String(location.href) };
    var before = mark;
    mark = null;
    var now = visibleControls(), nowSet = new Set(now);
    var added = now.filter(function (el) { return !before.controls.has(el); });
    var removed = [];
    before.controls.forEach(function (el) { if (!nowSet.has(el)) removed.push(el); });
    // A control replaced by its twin (same role and label) was re-rendered, not added.
    var goneKeys = new Map();
    removed.forEach(function (el) {
      var key = roleOf(el) + "\n" + labelOf(el);
      goneKeys.set(key, (goneKeys.get(key) || 0) + 1);
    });
    var fresh = [], rerendered = 0;
    added.forEach(function (el) {
      var key = roleOf(el) + "\n" + labelOf(el);
      var left = goneKeys.get(key) || 0;
      if (left > 0) { goneKeys.set(key, left - 1); rerendered++; } else fresh.push({ role: roleOf(el), label: labelOf(el) });
    });
    var gone = [];
    goneKeys.forEach(function (count, key) {
      var parts = key.split("\n");
      for (var k = 0; k < count; k++) gone.push({ role: parts[0], label: parts[1] });
    });
    var dialogsNow = openDialogs();
    var opened = dialogsNow.filter(function (d) { return before.dialogs.indexOf(d) < 0; }).map(function (d) {
      var name = dialogName(d), prose = proseOf(d);
      if (name && prose.indexOf(name) === 0) prose = prose.slice(name.length).trim();
      return { label: name, text: clip(prose, 300) };
    });
    var closed = before.dialogs.filter(function (d) { return dialogsNow.indexOf(d) < 0; }).map(dialogName);
    var skip = new Set(fresh.map(function (f) { return f.label; }));
    var lines = [], dialogText = opened.map(function (o) { return o.text; }).join("\n");
    pageLines().forEach(function (line) {
      if (lines.length < NEW_LINES && !before.lines.has(line) && !skip.has(line) && dialogText.indexOf(line) < 0) {
        lines.push(clip(line, 160));
      }
    });
    return { ok: true, url: String(location.href), urlBefore: before.url, added: fresh.slice(0, CHANGES_LISTED),
             addedCount: fresh.length, removed: gone.slice(0, CHANGES_LISTED), removedCount: gone.length,
             rerendered: rerendered, dialogsOpened: opened, dialogsClosed: closed, newText: lines };
  };

  J.submit = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var form = r.el.form || (r.el.closest && r.el.closest("form"));
    if (!form) return { ok: false, error: "no_form" };
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
    return { ok: true, action: String(form.action || "") };
  };

  J.selectOption = function (target, wanted) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var el = r.el;
    if (el.tagName !== "SELECT") return { ok: false, error: "not_select" };
    var want = String(wanted).trim().toLowerCase();
    var choice = null, options = [];
    for (var i = 0; i < el.options.length; i++) {
      var o = el.options[i];
      options.push(clip(o.text, 40));
      if (o.value.toLowerCase() === want || o.text.trim().toLowerCase() === want) { choice = o; break; }
    }
    if (!choice) {
      for (var k = 0; k < el.options.length; k++) {
        if (el.options[k].text.toLowerCase().indexOf(want) >= 0) { choice = el.options[k]; break; }
      }
    }
    if (!choice) return { ok: false, error: "no_option", options: options.slice(0, 30) };
    setNativeValue(el, choice.value);
    var Ev = el.ownerDocument.defaultView.Event;
    el.dispatchEvent(new Ev("input", { bubbles: true }));
    el.dispatchEvent(new Ev("change", { bubbles: true }));
    return { ok: true, value: choice.value, text: clip(choice.text, 80) };
  };

  J.scroll = function (direction) {
    var se = document.scrollingElement || document.documentElement;
    var before = window.scrollY;
    var step = Math.round(window.innerHeight * 0.8);
    if (direction === "down") window.scrollBy({ top: step, behavior: "instant" });
    else if (direction === "up") window.scrollBy({ top: -step, behavior: "instant" });
    else if (direction === "top") window.scrollTo({ top: 0, behavior: "instant" });
    else if (direction === "bottom") window.scrollTo({ top: se.scrollHeight, behavior: "instant" });
    return { ok: true, before: before, after: window.scrollY,
             max: Math.max(0, se.scrollHeight - window.innerHeight) };
  };

  J.scrollTo = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    r.el.scrollIntoView({ block: "center", behavior: "instant" });
    return { ok: true, after: window.scrollY };
  };

  // -- open menus, listboxes and dialogs, with their entries (read_page shows them near the top) --
  // What is open over the page: an open dialog (role, aria-modal, <dialog open>, an open popover),
  // and a listbox or menu that an expanded control opened (a combobox's suggestions, a menu button's
  // menu) or that floats over the page. A listbox or menu laid out in the page is not a popup.
  var ENTRY_SEL = "[role=option], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio]";
  var DIALOG_ENTRY_SEL = "a[href], button, [role=button], [role=link], input:not([type=hidden]), select, textarea";
  var POPUPS_MAX = 5, POPUP_ENTRIES_MAX = 30, DIALOG_ENTRIES_MAX = 10;

  function floats(el) {
    for (var n = el, depth = 0; n && n.nodeType === 1 && depth < 4; n = n.parentElement, depth++) {
      var pos = getComputedStyle(n).position;
      if (pos === "absolute" || pos === "fixed") return true;
    }
    return false;
  }

  // The popups that expanded controls say they opened (aria-controls, aria-owns), with the control.
  function popupOwners() {
    var owners = new Map();
    var toggles = document.querySelectorAll("[aria-expanded=true][aria-controls], [aria-expanded=true][aria-owns]");
    for (var i = 0; i < toggles.length; i++) {
      var ids = ((toggles[i].getAttribute("aria-controls") || "") + " " +
                 (toggles[i].getAttribute("aria-owns") || "")).split(/\s+/);
      for (var k = 0; k < ids.length; k++) {
        var box = ids[k] ? document.getElementById(ids[k]) : null;
        if (box && !owners.has(box)) owners.set(box, toggles[i]);
      }
    }
    return owners;
  }

  function popupKindOf(el) {
    var role = (el.getAttribute("role") || "").toLowerCase();
    if (role === "listbox" || role === "menu") return role;
    if (role === "dialog" || role === "alertdialog" || el.tagName === "DIALOG" ||
        el.getAttribute("aria-modal") === "true" || el.hasAttribute("popover")) return "dialog";
    return el.querySelector("[role=option]") ? "listbox" : "menu";
  }

  function ownLabel(el) {
    var aria = el.getAttribute("aria-label");
    if (aria) return clip(aria, 80);
    var by = el.getAttribute("aria-labelledby");
    if (!by) return "";
    return clip(by.split(/\s+/).map(function (id) {
      var n = el.ownerDocument.getElementById(id); return n ? n.textContent : "";
    }).join(" "), 80);
  }

  function popupReport() {
    var owners = popupOwners();
    var nodes = Array.prototype.slice.call(document.querySelectorAll(
      "dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true], [role=listbox], [role=menu], [popover]"));
    owners.forEach(function (_owner, box) { if (nodes.indexOf(box) < 0) nodes.push(box); });
    var found = [], out = [];
    for (var i = 0; i < nodes.length && out.length < POPUPS_MAX; i++) {
      var el = nodes[i], kind = popupKindOf(el), owner = owners.get(el) || null;
      if (el.hasAttribute("popover") && !matchesSafe(el, ":popover-open")) continue;
      if (el.getAttribute("aria-hidden") === "true" || !isVisible(el)) continue;
      if (kind !== "dialog" && !owner && !floats(el)) continue;  // a list laid out in the page
      var inside = false;
      for (var f = 0; f < found.length && !inside; f++) inside = found[f].el.contains(el) && found[f].kind === kind;
      if (inside) continue;  // a submenu is read with its menu
      var items = el.querySelectorAll(ENTRY_SEL);
      if (!items.length) items = el.querySelectorAll(kind === "dialog" ? DIALOG_ENTRY_SEL : "li, " + DIALOG_ENTRY_SEL);
      var entries = [], count = 0, most = kind === "dialog" ? DIALOG_ENTRIES_MAX : POPUP_ENTRIES_MAX;
      for (var k = 0; k < items.length; k++) {
        var item = items[k];
        if (!isVisible(item)) continue;
        count++;
        if (entries.length >= most) continue;
        var entry = { text: clip(item.innerText || labelOf(item), 80), index: J.refs.indexOf(item) };
        if (entry.index < 0) {  // an entry that is not itself listed: the listed element inside it
          for (var r = 1; r < J.refs.length && entry.index < 0; r++) if (item.contains(J.refs[r])) entry.index = r;
        }
        if (item.getAttribute("aria-selected") === "true" || item.getAttribute("aria-checked") === "true" ||
            item.getAttribute("aria-current") === "true") entry.selected = true;
        if (item.getAttribute("aria-disabled") === "true" || item.disabled) entry.disabled = true;
        entries.push(entry);
      }
      var report = { kind: kind, label: ownLabel(el), entries: entries, count: count };
      if (owner) report.owner = { role: roleOf(owner), label: labelOf(owner) };
      if (kind === "dialog") report.text = clip(el.innerText || "", 300);
      found.push({ el: el, kind: kind });
      out.push(report);
    }
    return out;
  }

  // -- readiness: is this document usable yet? (ui/page_driver.py waits on it, not on the load event)
  // An id per document (the library runs once per document), so the driver tells the document a
  // navigation brought from the one it replaces; and the time of the last change to the DOM's nodes or
  // text (not attributes: carousels and animations toggle those all the time), watched from when the
  // library starts (DOMContentLoaded, as it is injected then), ignoring Jawad's own highlight box.
  var DOC_ID = Math.random().toString(36).slice(2) + "-" + Date.now().toString(36);
  var startedAt = performance.now(), lastChange = startedAt;

  function ownChange(record) {
    var nodes = record.type === "childList" ?
      Array.prototype.slice.call(record.addedNodes).concat(Array.prototype.slice.call(record.removedNodes)) :
      [record.target];
    for (var i = 0; i < nodes.length; i++) {
      var mine = false;
      for (var n = nodes[i], up = 0; n && up < 4 && !mine; n = n.parentNode, up++) mine = n.id === HIGHLIGHT_ID;
      if (!mine) return false;
    }
    return nodes.length > 0;
  }

  if (window.MutationObserver && document.documentElement) {
    new MutationObserver(function (records) {
      for (var i = 0; i < records.length; i++) {
        if (!ownChange(records[i])) { lastChange = performance.now(); return; }
      }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  }

  // When the page's last request (fetch, XHR, image, script) finished, for settling after an action
  // (``net``). A request still under way is not seen: only the ones that ended.
  var lastResponse = -1e9;
  try {
    new PerformanceObserver(function () { lastResponse = performance.now(); }).observe({ type: "resource" });
  } catch (e) { /* an engine without resource timing */ }

  // ``sinceReady``: milliseconds since DOMContentLoaded ended (-1 before it); ``quiet``: since the DOM
  // last changed.
  J.readiness = function () {
    var now = performance.now(), ready = -1;
    var nav = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
    if (nav && nav.domContentLoadedEventEnd > 0) ready = nav.domContentLoadedEventEnd;
    else if (document.readyState !== "loading") ready = startedAt;  // about:blank, a document.write page
    return { id: DOC_ID, state: document.readyState, url: String(location.href),
             sinceReady: ready >= 0 ? Math.round(now - ready) : -1, quiet: Math.round(now - lastChange),
             net: Math.round(now - lastResponse) };
  };

  // For wait_for: is the text visible on the page, or does the selector match a visible element?
  J.find = function (query) {
    if (query.selector) {
      var el = resolveSelector(query.selector);
      if (el && el.error) return { ok: false, error: "invalid_selector" };
      return { ok: true, found: !!el && isVisible(el) };
    }
    var want = String(query.text || "").toLowerCase();
    var roots = [];
    collectRoots(document, roots, 0);
    for (var i = 0; i < roots.length; i++) {
      var body = roots[i].body || roots[i];
      var t = body.innerText !== undefined ? body.innerText : body.textContent;
      if (t && t.toLowerCase().indexOf(want) >= 0) return { ok: true, found: true };
    }
    return { ok: true, found: false };
  };

  // The outline follows its element while shown (scrolling, resizing, reflow): a requestAnimationFrame
  // loop moves the box whenever the element's rectangle changes, and stops when it is cleared.
  var highlightLoop = 0;

  function placeHighlight(box, rect) {
    box.style.left = (rect.x - 4) + "px";
    box.style.top = (rect.y - 4) + "px";
    box.style.width = (rect.width + 8) + "px";
    box.style.height = (rect.height + 8) + "px";
  }

  function trackHighlight(box, el, rect) {
    var last = rect;
    function follow() {
      if (!box.isConnected) { highlightLoop = 0; return; }
      if (el.isConnected) {
        var now = topRect(el);
        if (now.x !== last.x || now.y !== last.y || now.width !== last.width || now.height !== last.height) {
          placeHighlight(box, now);
          last = now;
        }
        box.style.display = "";
      } else {
        box.style.display = "none";  // a re-render replaced it: no outline around something else
      }
      highlightLoop = requestAnimationFrame(follow);
    }
    highlightLoop = requestAnimationFrame(follow);
  }

  J.highlight = function (target, note) {
    J.clearHighlight();
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var rect = topRect(r.el);
    var box = document.createElement("div");
    box.id = HIGHLIGHT_ID;
    box.setAttribute("aria-hidden", "true");
    box.style.cssText = "position:fixed;z-index:2147483647;pointer-events:none;box-sizing:border-box;" +
      "border:3px solid #f59e0b;border-radius:4px;background:rgba(245,158,11,0.15);" +
      "box-shadow:0 0 0 4px rgba(245,158,11,0.35);transition:none;";
    placeHighlight(box, rect);
    if (note) {
      var tag = document.createElement("div");
      tag.textContent = note;
      tag.style.cssText = "position:absolute;left:0;top:-22px;background:#f59e0b;color:#111;font:12px sans-serif;" +
        "padding:2px 6px;border-radius:3px;white-space:nowrap;";
      box.appendChild(tag);
    }
    (document.body || document.documentElement).appendChild(box);
    trackHighlight(box, r.el, rect);
    return { ok: true, rect: rect };
  };

  J.clearHighlight = function () {
    if (highlightLoop) cancelAnimationFrame(highlightLoop);
    highlightLoop = 0;
    var old = document.getElementById(HIGHLIGHT_ID);
    if (old) old.remove();
    return { ok: true };
  };

  J.highlighted = function () {
    var box = document.getElementById(HIGHLIGHT_ID);
    return { ok: true, present: !!box };
  };

  // What on the page needs the user rather than the agent (a hand-over): a visible password field, a
  // CAPTCHA (its iframe or widget), a one-time-code input, payment card fields. Only what is shown
  // counts; nothing of what a field holds leaves the page.
  var CAPTCHA_RE = /recaptcha|hcaptcha|turnstile|captcha|challenges\.cloudflare\.com/i;
  var OTP_RE = /(^|[^a-z])(otp|one[-_ ]?time|2fa|totp|mfa)([^a-z]|$)|verification[-_ ]?code/i;
  var CARD_RE = /card[-_ ]?number|cc[-_]?(number|num|csc|exp)|cvv|cvc|security[-_ ]?code/i;

  J.needsUser = function () {
    var out = { ok: true, password: 0, captcha: 0, otp: 0, payment: 0 };
    var roots = [];
    collectRoots(document, roots, 0);
    for (var i = 0; i < roots.length; i++) {
      var all = roots[i].querySelectorAll("input, iframe, div, textarea");
      for (var k = 0; k < all.length; k++) {
        var el = all[k], tag = el.tagName;
        if (tag === "IFRAME") {
          var what = (el.getAttribute("src") || "") + " " + (el.getAttribute("title") || "") + " " +
            (el.getAttribute("name") || "") + " " + (el.id || "");
          if (CAPTCHA_RE.test(what) && isVisible(el)) out.captcha++;
          continue;
        }
        if (tag === "DIV") {
          var cls = (typeof el.className === "string" ? el.className : "") + " " + (el.id || "");
          if (/(^|\s)(g-recaptcha|h-captcha|cf-turnstile)(\s|$)|captcha/i.test(cls) && isVisible(el)) out.captcha++;
          continue;
        }
        if (!isVisible(el)) continue;
        var type = String(el.type || "").toLowerCase();
        var auto = String(el.getAttribute("autocomplete") || "").toLowerCase();
        var named = (el.getAttribute("name") || "") + " " + (el.id || "") + " " +
          (el.getAttribute("aria-label") || "") + " " + (el.getAttribute("placeholder") || "");
        if (type === "password") out.password++;
        else if (auto.indexOf("one-time-code") >= 0 || OTP_RE.test(named)) out.otp++;
        else if (/\bcc-(number|exp|csc|name|exp-month|exp-year)\b/.test(auto) || CARD_RE.test(named)) out.payment++;
        else if (CAPTCHA_RE.test(named)) out.captcha++;
      }
    }
    return out;
  };

  // -- what an action would really do (Harbor's critical actions, issue 28) -----------------------
  // The page around a control, as facts for core/tools/browser/critical.py (which weighs them and
  // says why): the form, dialog or section it acts in, card fields and iframes there, password fields
  // and their autocomplete, where its form posts, the dialog's words and the region's text. A neutral
  // label ("Continue", "OK") hides none of it. Nothing a field holds leaves the page.
  var PAY_FIELD_RE = /(^|[^a-z])(iban|cardnumber|card[-_ ]?(no|num)|cc[-_]?(name|type)|expiry|exp[-_]?(date|month|year))([^a-z]|$)|kartennummer|num[ée]ro de (la )?carte|n[úu]mero de (la )?(tarjeta|cart[ãa]o)|numero (della |di )?carta|kaartnummer|numer karty|номер карты|卡号|カード番号|رقم البطاقة/i;
  var DESTRUCTIVE_RE = /(^|[\s_-])(danger|destructive|delete|remove|btn-red|warn|warning|critical)([\s_-]|$)/i;

  function composedParent(node) {
    if (node.parentNode && node.parentNode.nodeType === 1) return node.parentNode;
    var root = node.getRootNode ? node.getRootNode() : null;
    if (root instanceof ShadowRoot) return root.host;
    var win = node.ownerDocument && node.ownerDocument.defaultView;
    return node.parentNode === node.ownerDocument && win && win.frameElement ? win.frameElement : null;
  }

  function isDialog(node) {
    var role = (node.getAttribute("role") || "").toLowerCase();
    return node.tagName === "DIALOG" || role === "dialog" || role === "alertdialog";
  }

  // What "around the control" is: its form; else its dialog or nearest form-like section; else the
  // largest block above it that is still short (a small checkout page: its whole body).
  function actionScope(el) {
    var form = el.form || (el.closest && el.closest("form"));
    var dialog = null, section = null, region = null, short = true;
    for (var n = el, guard = 0; n && guard < 60; n = composedParent(n), guard++) {
      if (!dialog && isDialog(n)) dialog = n;
      if (!section && n !== el && n.matches("fieldset, section, article, aside, [role=form], [role=region]")) section = n;
      var atTop = n.tagName === "BODY" || n.tagName === "HTML";
      // Sized by textContent (no layout); above the first long block every block is longer.
      if (n !== el && short) {
        short = (n.textContent || "").length <= 4000;
        if (short) region = n;
      }
      if (atTop) break;
    }
    if (form) return { el: form, kind: "form", dialog: dialog };
    if (dialog) return { el: dialog, kind: "dialog", dialog: dialog };
    if (section) return { el: section, kind: "section", dialog: null };
    return { el: region || el.parentElement || el, kind: "region", dialog: null };
  }

  function digitsQuantifier(pattern) {
    var m = /\{(\d+)(?:,(\d*))?\}/.exec(pattern || "");
    if (!m) return false;
    var lo = parseInt(m[1], 10), hi = m[2] ? parseInt(m[2], 10) : lo;
    return lo >= 12 && lo <= 19 && hi >= 13 && hi <= 23;
  }

  // The dialog's own words, not its buttons' (an edit dialog's "Delete" button is no deletion of "Save").
  function wordsOutsideControls(root, n) {
    var doc = root.ownerDocument, out = "";
    var walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (var t = walker.nextNode(); t && out.length < n; t = walker.nextNode()) {
      var parent = t.parentElement;
      if (!parent || parent.closest("button, [role=button], a, select, option, input, textarea, script, style")) continue;
      out += " " + t.nodeValue;
    }
    return clip(out, n);
  }

  // A form's, section's or dialog's name and headings (or the heading just before it: "<h2>Delete
  // your account</h2><form>").
  var HEADINGS = "h1, h2, h3, h4, legend, [role=heading]";
  function nameAndHeadings(root, describedToo) {
    var doc = root.ownerDocument, parts = [root.getAttribute("aria-label") || ""];
    (describedToo ? ["aria-labelledby", "aria-describedby"] : ["aria-labelledby"]).forEach(function (attr) {
      (root.getAttribute(attr) || "").split(/\s+/).forEach(function (id) {
        var n = id && doc.getElementById(id);
        if (n) parts.push(n.textContent || "");
      });
    });
    var heads = root.querySelectorAll(HEADINGS);
    for (var i = 0; i < heads.length && i < 3; i++) parts.push(heads[i].textContent || "");
    for (var prev = root.previousElementSibling, k = 0; !heads.length && prev && k < 3; prev = prev.previousElementSibling, k++) {
      if (prev.matches(HEADINGS)) { parts.push(prev.textContent || ""); break; }
    }
    return parts.filter(function (p) { return p.trim(); }).map(function (p) { return clip(p, 200); }).join(" · ");
  }

  function dialogWords(dialog) {
    return clip(nameAndHeadings(dialog, true) + " · " + wordsOutsideControls(dialog, 300), 700);
  }

  J.actionFacts = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var el = r.el, scope = actionScope(el);
    var out = { ok: true, scope: scope.kind, cardFields: [], frames: [], passwords: 0, newPasswords: 0,
                currentPasswords: 0, quantities: 0, action: "", method: "", dialogText: "", heading: "",
                text: "", destructive: false };
    var fields = scope.el.querySelectorAll("input, select, textarea");
    for (var i = 0; i < fields.length && i < 300; i++) {
      var f = fields[i], type = String(f.type || "").toLowerCase();
      if (type === "hidden") continue;
      var auto = String(f.getAttribute("autocomplete") || "").toLowerCase();
      var named = (f.getAttribute("name") || "") + " " + (f.id || "") + " " + (f.getAttribute("aria-label") || "") +
        " " + (f.getAttribute("placeholder") || "") + " " + (f.labels && f.labels.length ? f.labels[0].textContent : "");
      if (type === "password") {
        out.passwords++;
        if (auto.indexOf("new-password") >= 0) out.newPasswords++;
        if (auto.indexOf("current-password") >= 0) out.currentPasswords++;
        continue;
      }
      if (auto.indexOf("one-time-code") >= 0 || OTP_RE.test(named)) continue;
      var cc = /(^|\s)cc-(number|exp|exp-month|exp-year|csc|name|type)(\s|$)/.exec(auto);
      var mode = String(f.getAttribute("inputmode") || "").toLowerCase();
      if (cc) out.cardFields.push("cc-" + cc[2]);
      else if (CARD_RE.test(named) || PAY_FIELD_RE.test(named)) out.cardFields.push(clip(named, 60));
      else if ((mode === "numeric" || mode === "tel" || type === "tel") && digitsQuantifier(f.getAttribute("pattern")))
        out.cardFields.push("a field for a 13 to 19 digit number");
      if (type === "number" || /(^|[^a-z])(qty|quantity)([^a-z]|$)|menge|quantit|cantidad|quantidade|aantal|ilość|количество|数量/i.test(named))
        out.quantities++;
    }
    var frames = scope.el.querySelectorAll("iframe, frame");
    for (var k = 0; k < frames.length && out.frames.length < 10; k++) {
      out.frames.push({ src: String(frames[k].src || frames[k].getAttribute("src") || ""),
                        title: clip(frames[k].getAttribute("title") || frames[k].getAttribute("name") || "", 80) });
    }
    var form = el.form || (el.closest && el.closest("form"));
    if (form) {
      out.action = String(el.formAction && el.hasAttribute("formaction") ? el.formAction : form.action || "");
      out.method = String(el.hasAttribute && el.hasAttribute("formmethod") ? el.formMethod : form.method || "").toLowerCase();
    }
    if (scope.dialog) out.dialogText = dialogWords(scope.dialog);
    if (scope.kind !== "region") out.heading = nameAndHeadings(scope.el, false);
    out.text = clip(scope.el.innerText || scope.el.textContent || "", 3000);
    var cls = (typeof el.className === "string" ? el.className : "") + " " + (el.id || "");
    out.destructive = DESTRUCTIVE_RE.test(cls);
    return out;
  };

  J.call = function (name, args) {
    var outer = markCache === null;
    if (outer) markCache = new Map();  // the page's handlers asked once per document per call
    try {
      return JSON.stringify(J[name].apply(null, args || []));
    } catch (e) {
      return JSON.stringify({ ok: false, error: "script_error", message: String(e && e.message || e) });
    } finally {
      if (outer) markCache = null;
    }
  };

  Object.defineProperty(window, "__jawad", { value: J, writable: false, configurable: true });
})();
