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
    "[contenteditable=''], [contenteditable=true]", "[onclick]"
  ].join(",");
  var HIGHLIGHT_ID = "__jawad_highlight__";

  var J = { version: 1, refs: [null] };

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
      if (!el.isConnected) return { error: "detached" };
      return { el: el };
    }
    var found = resolveSelector(String(target.selector || ""));
    if (found && found.error) return { error: "invalid_selector" };
    if (!found) return { error: "not_found" };
    return { el: found };
  }

  function roleOf(el) {
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
    return "CLICKABLE";
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
    var text = el.innerText !== undefined ? el.innerText : el.textContent;
    if (text && text.trim()) return clip(text, 80);
    var img = el.querySelector && el.querySelector("img[alt]");
    if (img) return clip(img.getAttribute("alt"), 80);
    return clip(el.title || el.getAttribute("href") || "", 80);
  }

  function isVisible(el) {
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    var r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
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
    var type = (el.getAttribute("type") || "").toLowerCase();
    var isSubmit = (el.tagName === "BUTTON" && (type === "" || type === "submit") && !!form) ||
                   (el.tagName === "INPUT" && (type === "submit" || type === "image"));
    return {
      tag: el.tagName.toLowerCase(), role: roleOf(el), label: labelOf(el), selector: fullSelector(el),
      visible: isVisible(el), disabled: !!el.disabled || el.getAttribute("aria-disabled") === "true",
      href: el.href ? String(el.href) : "", formAction: form ? String(form.action || "") : "",
      isSubmit: isSubmit, type: type, checked: !!el.checked, value: el.value !== undefined ? String(el.value) : "",
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

  J.elements = function (limit) {
    var roots = [];
    collectRoots(document, roots, 0);
    J.refs = [null];
    var lines = [], candidates = 0, hidden = 0, omitted = 0;
    for (var r = 0; r < roots.length; r++) {
      var list = roots[r].querySelectorAll(CANDIDATES);
      candidates += list.length;
      for (var i = 0; i < list.length; i++) {
        var el = list[i];
        if (J.refs.length > limit) { omitted++; continue; }
        if (!isVisible(el)) { hidden++; continue; }
        J.refs.push(el);
        var n = J.refs.length - 1;
        var item = { index: n, role: roleOf(el), label: labelOf(el), selector: fullSelector(el) };
        if (el.disabled) item.disabled = true;
        if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) item.checked = !!el.checked;
        else if ((el.tagName === "INPUT" || el.tagName === "TEXTAREA") && el.value) item.value = clip(el.value, 40);
        lines.push(item);
      }
    }
    return { items: lines, candidates: candidates, hidden: hidden, omitted: omitted, roots: roots.length };
  };

  // Price-styled texts, each with what tells the current price from the others: whether it is
  // struck through (s/del/strike or a line-through style, the "was" price) and its distance in
  // pixels to the main heading and to the buy button (null when the page has none).
  function priceTexts() {
    var out = [];
    var h1 = document.querySelector("h1");
    var buy = null;
    var buttons = document.querySelectorAll("button, input[type=submit], [role=button]");
    for (var b = 0; b < buttons.length && !buy; b++) {
      var label = buttons[b].innerText || buttons[b].value || "";
      if (/add to (cart|bag|basket)|buy|warenkorb|panier|añadir|comprar|pre-?order|kaufen|koszyka/i.test(label) &&
          isVisible(buttons[b])) buy = buttons[b];
    }
    function centre(el) {
      var r = el.getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2];
    }
    function distance(a, b) {
      if (!b) return null;
      var p = centre(a), q = centre(b);
      return Math.round(Math.sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1])));
    }
    function struck(el) {
      for (var n = el, depth = 0; n && n.nodeType === 1 && depth < 5; n = n.parentElement, depth++) {
        if (/^(S|DEL|STRIKE)$/.test(n.tagName)) return true;
        var line = getComputedStyle(n).textDecorationLine || getComputedStyle(n).textDecoration || "";
        if (line.indexOf("line-through") >= 0) return true;
      }
      return false;
    }
    var nodes = document.querySelectorAll("[itemprop=price], [class*=price], [id*=price], [class*=Price], [data-price], s, del, strike");
    for (var i = 0; i < nodes.length && out.length < 12; i++) {
      if (!isVisible(nodes[i])) continue;
      var t = clip(nodes[i].innerText || nodes[i].getAttribute("content") || "", 60);
      if (t) out.push({ text: t, struck: struck(nodes[i]), h1: distance(nodes[i], h1), buy: distance(nodes[i], buy) });
      // An old price styled by a class inside the price box ("$80 $64"): report it on its own.
      var kids = nodes[i].children;
      for (var k = 0; k < kids.length && out.length < 12; k++) {
        var kt = clip(kids[k].innerText || "", 60);
        if (kt && struck(kids[k]) && !struck(nodes[i])) out.push({ text: kt, struck: true, h1: null, buy: null });
      }
    }
    return out;
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
    // they do): only a small part with visibility:hidden is taken as hidden.
    return cs.visibility === "hidden" && (el.textContent || "").length < 400;
  }

  // The whole rendered document (head included: the extractor reads title and meta) as HTML, with
  // what the browser hides and what is never read removed. Works on a copy: the page is not touched.
  function wholeHtml(doc) {
    var live = doc.documentElement, copy = live.cloneNode(true);
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
    return "<!DOCTYPE html>" + copy.outerHTML;
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
    var html = wholeHtml(document);
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
                      html: cappedHtml(sub.body, 20000, { truncated: false }) });
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
      html: html, htmlTruncated: state.truncated, structuredHtml: structuredHtml(),
      frames: frames, shadowText: shadowText, h1: h1 ? clip(h1.innerText, 200) : "",
      priceTexts: priceTexts(), text: visibleText.slice(0, 20000), textLength: visibleText.length,
      elements: J.elements(opts.maxElements || 150)
    };
  };

  J.describe = function (target) {
    var r = resolve(target);
    if (r.error) return { ok: false, error: r.error };
    var d = info(r.el);
    d.ok = true;
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
    d.ok = true; d.x = cx; d.y = cy; d.rect = rect;
    d.onTop = !!hit && (hit === el || contains(el, hit));
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
    if (editable) {
      setNativeValue(el, text);
    } else {
      el.textContent = text;
    }
    var Ev = el.ownerDocument.defaultView.Event;
    el.dispatchEvent(new Ev("input", { bubbles: true }));
    el.dispatchEvent(new Ev("change", { bubbles: true }));
    return { ok: true, value: editable ? el.value : el.textContent, hasForm: !!el.form };
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
      "box-shadow:0 0 0 4px rgba(245,158,11,0.35);transition:none;" +
      "left:" + (rect.x - 4) + "px;top:" + (rect.y - 4) + "px;width:" + (rect.width + 8) + "px;height:" +
      (rect.height + 8) + "px;";
    if (note) {
      var tag = document.createElement("div");
      tag.textContent = note;
      tag.style.cssText = "position:absolute;left:0;top:-22px;background:#f59e0b;color:#111;font:12px sans-serif;" +
        "padding:2px 6px;border-radius:3px;white-space:nowrap;";
      box.appendChild(tag);
    }
    (document.body || document.documentElement).appendChild(box);
    return { ok: true, rect: rect };
  };

  J.clearHighlight = function () {
    var old = document.getElementById(HIGHLIGHT_ID);
    if (old) old.remove();
    return { ok: true };
  };

  J.highlighted = function () {
    var box = document.getElementById(HIGHLIGHT_ID);
    return { ok: true, present: !!box };
  };

  J.call = function (name, args) {
    try {
      return JSON.stringify(J[name].apply(null, args || []));
    } catch (e) {
      return JSON.stringify({ ok: false, error: "script_error", message: String(e && e.message || e) });
    }
  };

  Object.defineProperty(window, "__jawad", { value: J, writable: false, configurable: true });
})();
