  // -- reading: the page's HTML for the extractors, what is hidden, Readability's article (J.snapshot)
  var SKIP_TAGS = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, SVG: 1, IFRAME: 1 };

  // The element's HTML, at most about ``budget`` characters: whole children while they fit,
  // descending into the first one that does not. Long pages are read from the top, as a person would,
  // or, once scrolled (``state.fromView``), from where the view is: what lies wholly above it or
  // wholly to its left is left out.
  function cappedHtml(el, budget, state) {
    var full = el.outerHTML;
    if (full.length <= budget) return full;
    state.truncated = true;
    var tag = el.tagName.toLowerCase();
    var out = "<" + tag + ">", left = budget - out.length - tag.length - 3;
    for (var c = el.firstChild; c && left > 0; c = c.nextSibling) {
      var piece;
      if (state.fromView && c.nodeType === 1 && behindView(c)) continue;
      if (c.nodeType === 3) piece = c.textContent.replace(/&/g, "&amp;").replace(/</g, "&lt;");
      else if (c.nodeType === 1 && !SKIP_TAGS[c.tagName.toUpperCase()]) piece = cappedHtml(c, left, state);
      else continue;
      if (piece.length > left) piece = piece.slice(0, left);
      out += piece; left -= piece.length;
    }
    return out + "</" + tag + ">";
  }

  // Wholly above the view, or wholly to its left with nothing reaching further right (a row of boxes
  // wider than the view reaches into it: its boxes are judged one by one).
  function behindView(el) {
    var r = el.getBoundingClientRect();
    return r.bottom < 0 || (r.right < 0 && el.scrollWidth <= r.width + 1);
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
        var inBody = body && body.contains(ak[i]);
        if (DROP_TAGS[tag] || (inBody && hiddenToReader(ak[i]))) { drop.push(bk[i]); continue; }
        var grid = inBody ? gridTable(ak[i], inert) : null;  // 06_grids.js
        if (grid) bk[i].replaceWith(grid);
        else if (tag !== "HEAD") stack.push([ak[i], bk[i]]);
      }
      for (var d = 0; d < drop.length; d++) drop[d].remove();
      keepLineBreaks(a, b);
    }
    return copy;
  }

  // Text the page shows with its own line breaks (CSS white-space pre, pre-wrap, pre-line on a block
  // that is no <pre>: a poem, a text to copy, a terminal's output) gets a <br> for each break in the
  // copy, so the extractors, which read HTML as the browser would without styles, keep its lines.
  var PRE_SPACES = { pre: 1, "pre-wrap": 1, "pre-line": 1, "break-spaces": 1 };

  function keepLineBreaks(live, copy) {
    var tag = live.tagName.toUpperCase();
    if (tag === "PRE" || tag === "TEXTAREA" || tag === "HEAD" || tag === "HTML") return;
    var texts = [];
    for (var n = copy.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3 && n.data.indexOf("\n") >= 0 && /\S/.test(n.data)) texts.push(n);
    }
    if (!texts.length || !PRE_SPACES[getComputedStyle(live).whiteSpace]) return;
    var owner = copy.ownerDocument, space = getComputedStyle(live).whiteSpace;
    var whole = copy.childNodes.length === 1 && texts.length === 1;
    if (whole && space !== "pre-line") {
      // A block of text alone whose spaces show as typed (code, a text to copy exactly): as <pre>, which
      // the extractors keep character for character (Markdown's code block).
      var pre = owner.createElement("pre");
      pre.textContent = texts[0].data.replace(/^\n+|\n+$/g, "");
      texts[0].replaceWith(pre);
      return;
    }
    // Otherwise, in paragraphs (blank lines between): a <p> each, as the extractors weigh paragraphs;
    // text among other elements gets the breaks alone.
    texts.forEach(function (t) {
      var paragraphs = whole ? t.data.replace(/^\s*\n|\n\s*$/g, "").split(/\n[ \t]*\n/) : [t.data];
      paragraphs.forEach(function (para) {
        var box = whole ? owner.createElement("p") : null;
        var lines = para.replace(/^\n+|\n+$/g, "").split("\n");
        for (var k = 0; k < lines.length; k++) {
          var parts = k > 0 ? [owner.createElement("br"), owner.createTextNode(lines[k])] : [owner.createTextNode(lines[k])];
          parts.forEach(function (node) { if (box) box.appendChild(node); else t.parentNode.insertBefore(node, t); });
        }
        if (box) t.parentNode.insertBefore(box, t);
      });
      t.remove();
    });
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
    var state = { truncated: false, fromView: window.scrollY > 0 || window.scrollX > 0 };
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
      var sub = frameDocument(iframes[i]);
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
