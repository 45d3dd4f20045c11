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
