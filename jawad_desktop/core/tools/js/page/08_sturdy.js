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
