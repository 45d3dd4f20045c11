  // -- readiness: is this document usable yet? (browser/driver.py waits on it, not on the load event)
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
             net: Math.round(now - lastResponse), moving: movingCount() };
  };

  // CSS transitions and animations under way that end (a dialog fading in, a menu sliding open): the
  // page is still changing on screen though its DOM is quiet. Endless ones (a spinner) do not count.
  function movingCount() {
    if (!document.getAnimations) return 0;
    var count = 0, all = document.getAnimations();
    for (var i = 0; i < all.length && i < 200; i++) {
      var a = all[i], timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      if (a.playState === "running" && timing && isFinite(timing.endTime)) count++;
    }
    return count;
  }

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
