  // -- the core: selectors, finding elements again, roles, labels, visibility, roots of shadow trees and frames
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

  // A frame's document when the library may read it (the same origin), else null.
  function frameDocument(frame) {
    try { return frame.contentDocument; } catch (e) { return null; }
  }

  function cssEscape(s) {
    return window.CSS && CSS.escape ? CSS.escape(s) : String(s).replace(/[^\w-]/g, "\\$&");
  }

  // While one call makes many selectors (the element list), what each root's search found: the
  // same ancestors' ids and the same classes are asked about for hundreds of elements, and each
  // answer is a search of the whole page (seconds on a large shop's page). Null between calls:
  // the page may change.
  var uniqueMemo = null;

  function withSelectorMemo(fn) {
    var outer = uniqueMemo;
    uniqueMemo = outer || new Map();
    try { return fn(); } finally { uniqueMemo = outer; }
  }

  // A selector unique within the element's own root (document or shadow root).
  function localSelector(el) {
    var root = el.getRootNode();
    var tag = el.tagName.toLowerCase();
    var memo = null;
    if (uniqueMemo) {
      memo = uniqueMemo.get(root);
      if (!memo) { memo = new Map(); uniqueMemo.set(root, memo); }
    }
    function unique(sel) {
      if (memo && memo.has(sel)) return memo.get(sel);
      var one;
      try { one = root.querySelectorAll(sel).length === 1; } catch (e) { one = false; }
      if (memo) memo.set(sel, one);
      return one;
    }
    // With the memo: how many of the root's elements (of ``tag``) have each id, value of ``attr``
    // or class, counted in one pass when first asked (a search per listed link is seconds).
    function counted(key, selector, keysOf) {
      var counts = memo.get(key);
      if (!counts) {
        counts = new Map();
        var all = root.querySelectorAll(selector);
        for (var n = 0; n < all.length; n++) {
          var values = keysOf(all[n]);
          for (var m = 0; m < values.length; m++) counts.set(values[m], (counts.get(values[m]) || 0) + 1);
        }
        memo.set(key, counts);
      }
      return counts;
    }
    function valid(sel) {
      try { document.createDocumentFragment().querySelector(sel); return true; } catch (e) { return false; }
    }
    // A page in quirks mode matches ids and classes whatever their case: so are they counted.
    var doc = el.ownerDocument, fold = doc && doc.compatMode === "BackCompat" ?
      function (t) { return t.toLowerCase(); } : function (t) { return t; };
    // (``form.id`` is the form's field named "id" when it has one: only a string is an id.)
    function uniqueId(id) {
      if (typeof id !== "string") return false;
      if (!memo) return unique("#" + cssEscape(id));
      return counted("\u0000#", "[id]", function (n) { return [fold(n.getAttribute("id") || "")]; }).get(fold(id)) === 1;
    }
    if (el.id && uniqueId(el.id)) return "#" + cssEscape(el.id);
    var attrs = ["data-testid", "data-test", "name", "aria-label", "href"];
    for (var i = 0; i < attrs.length; i++) {
      var v = el.getAttribute(attrs[i]);
      if (v && v.length < 80) {
        var s = tag + "[" + attrs[i] + "=\"" + v.replace(/"/g, "\\\"") + "\"]";
        var one = memo ? counted("\u0000" + s.slice(0, s.indexOf("=")) + "]", s.slice(0, s.indexOf("=")) + "]",
                                 function (n) { return [n.getAttribute(attrs[i])]; }).get(v) === 1 && valid(s)
                       : unique(s);
        if (one) return s;
      }
    }
    var classes = (typeof el.className === "string" ? el.className : "").split(/\s+/);
    for (var k = 0; k < classes.length; k++) {
      if (classes[k] && /^[A-Za-z_-][\w-]*$/.test(classes[k]) &&
          (memo ? counted("\u0000" + tag + ".", tag + "[class]", function (n) {
            return fold(n.getAttribute("class") || "").split(/\s+/).filter(function (c, at, all) {
              return c && all.indexOf(c) === at;
            });
          }).get(fold(classes[k])) === 1 : unique(tag + "." + classes[k]))) {
        return tag + "." + classes[k];
      }
    }
    var parts = [];
    var node = el;
    while (node && node.nodeType === 1) {
      var part = node.tagName.toLowerCase();
      if (node.id && uniqueId(node.id)) { parts.unshift("#" + cssEscape(node.id)); break; }
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
          root = frameDocument(el);
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
    if (sliderTrack(el)) return "SLIDER";
    if (closesSomething(el)) return "BUTTON";
    if (el.draggable && el.getAttribute("draggable") === "true") return "DRAGGABLE";
    return DRAGGING[getComputedStyle(el).cursor] ? "DRAGGABLE" : "CLICKABLE";
  }

  // -- sliders built from spans (jQuery UI's, many home-made ones) -----------------------------------
  // A handle without ARIA: a small element whose class says handle or thumb, inside a track whose
  // class says slider or range. Its track, or null.
  var HANDLE_CLASS = /(^|[\s_-])(handle|thumb|knob)([\s_-]|$)/i, TRACK_CLASS = /slider|range/i;
  function sliderTrack(el) {
    var cls = typeof el.className === "string" ? el.className : "";
    if (!HANDLE_CLASS.test(cls) || el.getAttribute("role")) return null;
    for (var n = el.parentElement, up = 0; n && up < 3; n = n.parentElement, up++) {
      var c = typeof n.className === "string" ? n.className : "";
      if (TRACK_CLASS.test(c) || TRACK_CLASS.test(n.id || "")) return n;
    }
    return null;
  }

  // Where a span slider's handle stands along its track, in percent (0 at the start: left, or the
  // bottom of an upright one), and which way the track runs; null when it cannot be measured.
  function sliderPosition(el) {
    var track = sliderTrack(el);
    if (!track) return null;
    var t = track.getBoundingClientRect(), h = el.getBoundingClientRect();
    var upright = t.height > t.width;
    var span = upright ? t.height : t.width;
    if (!span) return null;
    var at = upright ? (t.bottom - (h.top + h.height / 2)) / span : ((h.left + h.width / 2) - t.left) / span;
    return { percent: Math.max(0, Math.min(100, Math.round(at * 100))), upright: upright };
  }

  // A span slider's name: its track's ARIA name or title, else the nearest words before the track
  // (a label, a heading, a line of text), else "".
  function sliderName(el) {
    var track = sliderTrack(el);
    if (!track) return "";
    var named = track.getAttribute("aria-label") || track.getAttribute("title");
    if (named) return clip(named, 60);
    return wordsAbove(track, 3);
  }

  // The nearest words before ``el`` or one of its ``levels`` ancestors (a label, a heading, a line of text).
  function wordsAbove(el, levels) {
    for (var n = el, up = 0; n && up < levels; n = n.parentElement, up++) {
      for (var s = n.previousElementSibling, k = 0; s && k < 3; s = s.previousElementSibling, k++) {
        var words = clip(s.innerText || "", 60);
        if (HAS_WORD.test(words)) return words;
      }
    }
    return "";
  }

  // An ARIA slider without a name of its own (noUiSlider's handles): the words before its widget,
  // with the handle its class names say it is when it has several ("Price (upper)").
  var HANDLE_WORDS = /(?:^|[\s_-])(lower|upper|min|max|start|end|from|to)(?:$|[\s_-])/i;
  function ariaSliderName(el) {
    var near = wordsAbove(el, 5);
    if (!near) return "";
    var which = (typeof el.className === "string" ? el.className : "").match(HANDLE_WORDS);
    return which ? near + " (" + which[1].toLowerCase() + ")" : near;
  }

  // A control whose only words say it closes something (a dialog's "×" with title "Close"): a button,
  // whatever the page made it of.
  var CLOSE_WORDS = /^(close|dismiss|close dialog|close window|close this|×|✕|✖|x)$/i;
  function closesSomething(el) {
    if ((el.textContent || "").length > 40) return false;
    var own = clip(el.textContent || "", 20);
    if (own) return CLOSE_WORDS.test(own);
    return CLOSE_WORDS.test(clip(el.getAttribute("aria-label") || el.getAttribute("title") || "", 20));
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
      var before = wordsBefore(el);
      if (before) return before;
      if (el.name) return clip(el.name, 80);
      return "";
    }
    if (sliderTrack(el)) return sliderName(el) || "slider";
    if ((el.getAttribute("role") || "").toLowerCase() === "slider" && !HAS_WORD.test(el.innerText || "")) {
      var place = ariaSliderName(el);
      if (place) return place;
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

  // The words just before a field with no label, in the same line of the form ("Date: [    ]"):
  // the text nodes before it in its parent, when they are short.
  function wordsBefore(el) {
    var parts = [];
    for (var n = el.previousSibling, k = 0; n && k < 4; n = n.previousSibling, k++) {
      if (n.nodeType === 1 && (n.matches("input, select, textarea, button, br") || n.querySelector("input, select, textarea"))) break;
      var t = n.nodeType === 3 ? n.data : n.nodeType === 1 ? n.innerText || "" : "";
      if (t.trim()) parts.unshift(t);
    }
    var text = clip(parts.join(" "), 80);
    return HAS_WORD.test(text) && text.length <= 60 ? text.replace(/[:\s]+$/, "") : "";
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
        var sub = frameDocument(el);
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

  // Every root to scan: the document, same-origin iframes, open shadow roots (document order), down
  // to a depth pages use (a challenge nests nine frames; a person sees and clicks through them all).
  var MAX_ROOT_DEPTH = 12;
  function collectRoots(root, out, depth) {
    out.push(root);
    if (depth >= MAX_ROOT_DEPTH) return;
    var all = root.querySelectorAll("*");
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.shadowRoot) collectRoots(el.shadowRoot, out, depth + 1);
      if (el.tagName === "IFRAME" || el.tagName === "FRAME") {
        var sub = frameDocument(el);
        if (sub && sub.documentElement) collectRoots(sub, out, depth + 1);
      }
    }
  }
