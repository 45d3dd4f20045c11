  // -- actions: describe, prepare, click, focus, keys and pointer, fill
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
        var sub = frameDocument(el);
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

  // What is under a point of the top viewport (click_at: the element a click there lands on).
  J.atPoint = function (x, y) {
    var w = window.innerWidth, h = window.innerHeight;
    if (!(x >= 0 && y >= 0 && x < w && y < h)) return { ok: false, error: "hidden", viewport: { width: w, height: h } };
    var hit = deepHit(x, y);
    if (!hit) return { ok: true, role: "", label: "", viewport: { width: w, height: h } };
    var d = info(hit);
    d.ok = true; d.viewport = { width: w, height: h };
    return d;
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
