  // -- products: the prices a page shows, with what tells the product's own price from the others
  // The prices the page shows, each with what tells the product's current price from the others
  // (core/tools/browser/product_page.py weighs them): ``text`` (cents in a superscript joined as
  // decimals), ``struck`` (s/del/strike or a computed line-through), ``h1`` and ``buy`` (pixels
  // to the main heading and to the product's buy button, null without one), ``size`` (font size in
  // px: the current price is the largest), ``main`` (inside the smallest block holding both the
  // heading and the buy button), ``zone`` ("" or where else it is: "chrome" for the site's header,
  // nav, footer or aside, "dialog", "fixed" for a bar pinned to the window, "card" for another
  // product's tile or a related-products block), ``old`` (a class names it the old price: what a
  // style sheet strikes, on a page read without one), ``before``/``after`` (the words next to it in
  // its block, cut at the neighbouring prices, which show as "¤"). Prices only a screen reader gets
  // (a 1-px clip, off the page) are left out.
  var PRICE_CUR = "(?:US\\$|C\\$|A\\$|R\\$|[$£€¥￥₹₩₽₺円]|\\b(?:USD|EUR|GBP|JPY|PLN|CHF|SEK|NOK|DKK|CZK|CAD|AUD)\\b|zł|Kč|\\bkr\\b)";
  // Digits grouped by threes ("1 299,99", "1.234,56", "12,800", "1'299"), then cents or a dash ("149,-").
  var PRICE_NUM = "\\d+(?:[.,'’\\u00a0\\u202f\\u2009 ]\\d{3})*(?:[.,]\\d{1,2})?(?:[.,][-–]{1,2})?";
  // A number then a sign only when no digit follows ("Only 3 $5" is $5, not "3 $").
  var PRICE_SRC = PRICE_CUR + "\\s?" + PRICE_NUM + "|" + PRICE_NUM + "\\s?" + PRICE_CUR + "(?!\\s?\\d)";
  var BUY_WORDS = /add to (cart|bag|basket|trolley)|buy (it |now)|^\s*(add|buy|kaufen|acheter|comprar|compra|kopen|kup)\s*$|in den (warenkorb|einkaufswagen)|ajouter au panier|añadir a la cesta|añadir al carrito|aggiungi al carrello|in (de )?winkelwagen|dodaj do koszyka|カートに入れる|かごに入れる|カートに追加|pre-?order|vorbestellen|précommander|reservar|preordina|notify me|email me when|benachrichtig|m'alerter|me prévenir|avísame|avvisami|houd me op de hoogte|powiadom mnie|再入荷/i;
  var CHROME_ZONE = "header, nav, footer, aside, [role=banner], [role=navigation], [role=contentinfo], [role=complementary]";
  var DIALOG_ZONE = "dialog, [role=dialog], [role=alertdialog], [aria-modal=true]";
  // A class naming an old price: a price word with an old-price word, or a strike ("regular" is not
  // one: shops name the current price "regular-price" when there is no sale).
  var OLD_CLASS = /^(?:strike\w*|crossed\w*|line-?through)$|(?:price|preis|prix|precio|prezzo)\w*[_-]+(?:was|old|standard|compare\w*|original|list|before|rrp|msrp|uvp|strike\w*)(?:[_-]|$)|(?:^|[_-])(?:was|old|standard|compare(?:[_-]?at)?|original|list|before|rrp|msrp|uvp)[_-]?(?:price|preis|prix|precio|prezzo)/i;
  var CARD_WORDS = /related|recommend|similar|carousel|slider|swiper|slick|upsell|cross-?sell|also|recently|sponsor|\breco|shelf/i;
  var INLINE_DISPLAY = { inline: 1, "inline-block": 1, contents: 1, "table-cell": 1, "inline-flex": 1, ruby: 1 };

  function priceTexts() {
    var body = document.body;
    if (!body) return [];
    // Two global expressions: one walks a text node's prices while the other reads the context.
    var priceRe = new RegExp(PRICE_SRC, "g"), allRe = new RegExp(PRICE_SRC, "g"), oneRe = new RegExp(PRICE_SRC);
    // The product's heading: the first visible one not in the site's chrome nor over the page (a
    // dialog, or a sign-up box pinned to the window: a lightbox has its own heading).
    function overPage(el) {
      if (el.closest(DIALOG_ZONE)) return true;
      for (var n = el; n && n !== body; n = n.parentElement) if (getComputedStyle(n).position === "fixed") return true;
      return false;
    }
    var h1 = null, h1s = document.querySelectorAll("h1");
    for (var i = 0; i < h1s.length && !h1; i++) {
      if (isVisible(h1s[i]) && !h1s[i].closest(CHROME_ZONE) && !overPage(h1s[i])) h1 = h1s[i];
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
    // A price named as the old one by its class ("price-standard", "old-price", "strikethrough"):
    // the page's style sheet would strike it, and a saved or unstyled page has none. Only the
    // element and its two parents (a whole "pricelist" is no old price).
    function oldClass(el) {
      for (var n = el, depth = 0; n && n.nodeType === 1 && depth < 3; n = n.parentElement, depth++) {
        var names = (typeof n.className === "string" ? n.className : "").split(/\s+/);
        for (var k = 0; k < names.length; k++) if (names[k] && OLD_CLASS.test(names[k])) return true;
      }
      return false;
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
      // A header or aside inside the product's own block (a buy box in an <aside>) is the product's.
      var chrome = el.closest(CHROME_ZONE);
      if (outside(chrome) && !(main && main.contains(chrome))) return "chrome";
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
      return [cutBefore(before).slice(-60), cutAfter(after).slice(0, 40)];
    }
    function blockAround(el) {
      var block = blockOf(el);
      return block === el && el.parentElement && el.parentElement !== body ? blockOf(el.parentElement) : block;
    }
    // A price split over elements ("$" + "1,249" + <sup>00</sup>): its text nodes joined (with a
    // space between words, none between a price's pieces), superscript cents after digits as
    // decimals; ``parts`` says which element each piece of the text came from.
    function joined(el) {
      var parts = [], text = "", w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (var n = w.nextNode(); n; n = w.nextNode()) {
        var t = n.data.replace(/\s+/g, " ").trim(), pe = n.parentElement;
        if (!t || !pe) continue;
        var cs = getComputedStyle(pe);
        if ((pe.tagName === "SUP" || cs.verticalAlign === "super") && /^\d{2}$/.test(t) && /\d$/.test(text)) t = "." + t;
        else if (text && !(/[\d.,$£€¥￥₹₩₽₺]$/.test(text) && /^[\d.,$£€¥￥₹₩₽₺]/.test(t))) text += " ";
        parts.push({ start: text.length, end: text.length + t.length, el: pe, size: parseFloat(cs.fontSize) || 0 });
        text += t;
      }
      return { text: text, parts: parts };
    }
    // The words before a price cut at the price before it ("¤"), and after it at the next one.
    function cutBefore(s) {
      var all = s.match(allRe);
      if (!all) return s;
      var last = all[all.length - 1];
      return "¤" + s.slice(s.lastIndexOf(last) + last.length);
    }
    function cutAfter(s) {
      var next = oneRe.exec(s);
      return next ? s.slice(0, next.index) + "¤" : s;
    }
    // Each price of a split one that spans pieces (a piece holding a whole price was read as its
    // own text), judged by the piece holding its first digit: "$79.99" struck beside "$39.99".
    function addJoined(el) {
      var j = joined(el), rect = visibleRect(el);
      if (!rect) return;
      var around = document.createRange();
      around.setStartBefore(el); around.setEndAfter(el);
      var ce = context(blockAround(el), around), m, re = new RegExp(PRICE_SRC, "g");
      while ((m = re.exec(j.text))) {
        var start = m.index, end = start + m[0].length, digit = start + m[0].search(/\d/), owner = null, size = 0;
        var pieces = 0;
        for (var k = 0; k < j.parts.length; k++) {
          var part = j.parts[k];
          if (part.end <= start || part.start >= end) continue;
          pieces++;
          size = Math.max(size, part.size);
          if (part.start <= digit && digit < part.end) owner = part.el;
        }
        if (pieces < 2 || !owner) continue;
        var before = cutBefore(ce[0] + " " + j.text.slice(0, start)), after = cutAfter(j.text.slice(end) + " " + ce[1]);
        add(m[0], owner, rect, size, before.slice(-60), after.slice(0, 40));
      }
    }
    var found = [], seen = new Set(), scanned = 0;
    function add(text, anchor, rect, size, before, after) {
      if (!rect || rect.width <= 2 || rect.height <= 2 || rect.right < 0 || rect.bottom < 0 ||
          rect.left > Math.max(document.documentElement.scrollWidth, window.innerWidth)) return;
      var item = { text: clip(text, 60), struck: struck(anchor), h1: distance(rect, h1), buy: distance(rect, buy),
                   size: Math.round(size), main: !!(main && main.contains(anchor)), zone: zoneOf(anchor),
                   old: oldClass(anchor),
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
          addJoined(el);
        }
        break;
      }
    }
    // The most telling first: inside the product's block, then nearest the heading.
    found.sort(function (x, y) {
      return (y.main - x.main) || ((x.h1 === null ? 1e9 : x.h1) - (y.h1 === null ? 1e9 : y.h1));
    });
    return found.slice(0, 40);
  }
