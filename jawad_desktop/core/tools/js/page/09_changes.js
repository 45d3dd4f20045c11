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

  // The controls that say whether what they open is open (aria-expanded, a <details>' summary).
  function expansions(controls) {
    var out = new Map();
    for (var i = 0; i < controls.length; i++) {
      var el = controls[i], ex = el.getAttribute("aria-expanded");
      if (ex === "true" || ex === "false") out.set(el, ex === "true");
      else if (el.tagName === "SUMMARY" && el.parentElement && el.parentElement.tagName === "DETAILS") out.set(el, !!el.parentElement.open);
    }
    return out;
  }

  // What each control shows as its value (a field's text, a select's choice, a slider's place).
  function valuesOf(controls) {
    var out = new Map();
    for (var i = 0; i < controls.length && i < 400; i++) {
      var v = stateOf(controls[i]).value;
      out.set(controls[i], v === undefined ? "" : String(v));
    }
    return out;
  }

  // A fingerprint of what the page draws rather than writes: its canvases' pixels, its SVG drawings,
  // the boxes with no content (a game's disks and tiles, a chart's bars) where they are and in which
  // colour, and where its controls stand. Another fingerprint after an action means the picture changed though no word did;
  // the same one again, that it is back as it was. "" when the page draws nothing.
  var DRAWN_SEL = "canvas, svg, div:empty, span:empty, i:empty, li:empty, td:empty";
  var DRAWN_MAX = 600;

  function hashText(text, h) {
    for (var i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619) >>> 0; }
    return h;
  }

  function drawnPrint(controls) {
    var body = document.body;
    if (!body) return "";
    var found = body.querySelectorAll(DRAWN_SEL), h = 2166136261, seen = 0;
    // Where the controls stand and whether they are usable: a game's pieces that are buttons (a boat
    // with its "Unload" crossing the river) move without a word changing.
    for (var c = 0; c < controls.length && c < 400; c++) {
      var cr = controls[c].getBoundingClientRect();
      h = hashText(Math.round(cr.left + window.scrollX) + "," + Math.round(cr.top + window.scrollY) +
                   (controls[c].disabled ? "d" : "") + "|", h);
    }
    for (var i = 0; i < found.length && seen < DRAWN_MAX; i++) {
      var el = found[i], tag = el.tagName.toUpperCase();
      if (tag !== "SVG" && el.closest("svg")) continue;  // inside a drawing: its markup counts
      if (el.closest("#" + HIGHLIGHT_ID)) continue;  // the agent's own highlight is no part of the page
      var r = el.getBoundingClientRect();
      if (r.width < 4 || r.height < 4 || !isVisible(el)) continue;
      var part = Math.round(r.left + window.scrollX) + "," + Math.round(r.top + window.scrollY) + "," +
                 Math.round(r.width) + "," + Math.round(r.height);
      if (tag === "CANVAS") {
        try { part += el.toDataURL(); } catch (e) { part += "tainted"; }  // a canvas with other sites' images
      } else if (tag === "SVG") {
        part += el.outerHTML.length > 20000 ? el.outerHTML.slice(0, 20000) : el.outerHTML;
      } else {
        var cs = getComputedStyle(el);
        if ((cs.backgroundColor === "rgba(0, 0, 0, 0)" || cs.backgroundColor === "transparent") &&
            cs.backgroundImage === "none" && cs.borderTopWidth === "0px") continue;  // draws nothing
        part += cs.backgroundColor + cs.backgroundImage.slice(0, 200) + cs.borderTopColor;
      }
      h = hashText(part + "|", h); seen++;
    }
    // A page that draws something (seen) has a picture to name after every action; on one that only
    // has controls, the number is told only when they moved.
    return { print: seen || controls.length ? ("0000000" + h.toString(16)).slice(-8) : "", draws: seen > 0 };
  }

  J.changesMark = function () {
    var controls = visibleControls();
    mark = { url: String(location.href), controls: new Set(controls), dialogs: openDialogs(),
             lines: new Set(pageLines()), expanded: expansions(controls), values: valuesOf(controls),
             drawn: drawnPrint(controls).print };
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
    // Sections and menus that opened or closed: a control whose aria-expanded (or details) flipped.
    var opened2 = [], closed2 = [];
    expansions(now).forEach(function (open, el) {
      var was = before.expanded.get(el);
      if (was === undefined || was === open) return;
      (open ? opened2 : closed2).push({ role: roleOf(el), label: labelOf(el) });
    });
    // Values that changed (the field acted on is said by its own read-back; others are news).
    var changed = [];
    valuesOf(now).forEach(function (value, el) {
      if (!before.values.has(el) || before.values.get(el) === value || changed.length >= CHANGES_LISTED) return;
      changed.push({ role: roleOf(el), label: labelOf(el), value: clip(value, 60), was: clip(before.values.get(el), 60) });
    });
    var dialogsNow = openDialogs(), drawnNow = drawnPrint(now);
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
             rerendered: rerendered, dialogsOpened: opened, dialogsClosed: closed, newText: lines,
             expanded: opened2.slice(0, CHANGES_LISTED), collapsed: closed2.slice(0, CHANGES_LISTED), values: changed,
             drawn: drawnNow.print !== before.drawn ? drawnNow.print : "", picture: drawnNow.draws ? drawnNow.print : "" };
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

  // The element that scrolls sideways: the page, else the widest box that does (a row of cards).
  function sideScroller() {
    var se = document.scrollingElement || document.documentElement;
    if (se.scrollWidth > window.innerWidth + 1) return null;
    var best = null, width = 0, all = document.querySelectorAll("body *");
    for (var i = 0; i < all.length && i < 5000; i++) {
      var el = all[i];
      if (el.scrollWidth <= el.clientWidth + 1 || el.clientWidth <= width) continue;
      var ox = getComputedStyle(el).overflowX;
      if (ox === "auto" || ox === "scroll") { best = el; width = el.clientWidth; }
    }
    return best;
  }

  function scrollSideways(direction) {
    var box = sideScroller(), se = document.scrollingElement || document.documentElement;
    var before = box ? box.scrollLeft : window.scrollX;
    var view = box ? box.clientWidth : window.innerWidth, full = box ? box.scrollWidth : se.scrollWidth;
    var step = Math.round(view * 0.8), to = before;
    if (direction === "right") to = before + step;
    else if (direction === "left") to = before - step;
    else if (direction === "rightmost") to = full;
    else if (direction === "leftmost") to = 0;
    if (box) box.scrollTo({ left: to, behavior: "instant" }); else window.scrollTo({ left: to, behavior: "instant" });
    var after = box ? box.scrollLeft : window.scrollX;
    return { ok: true, before: before, after: after, max: Math.max(0, full - view), sideways: true };
  }

  J.scroll = function (direction) {
    if (direction === "left" || direction === "right" || direction === "leftmost" || direction === "rightmost") {
      return scrollSideways(direction);
    }
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
