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
      var h = { el: target, own: el, exact: exact, clickable: around.clickable, order: order++ };
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
    // The element the words are on, for a press that must land on them (a right-click, a hold) rather
    // than on the clickable element around them.
    return { ok: true, selector: fullSelector(chosen), wordsSelector: fullSelector(hits[nth - 1].own),
             role: roleOf(chosen), label: labelOf(chosen),
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
