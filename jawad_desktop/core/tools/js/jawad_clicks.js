// Notes the elements a page's own scripts make clickable. The page library (core/tools/js/page) runs in
// an isolated world and cannot see the page's listeners, so this runs in the page's MAIN world at
// document creation, before any page script, and wraps addEventListener and the on* property
// setters: an element that gets a click, dblclick, mousedown, mouseup, pointerdown, pointerup,
// touchstart or keydown handler is noted. A handler on the document or the window notes <html>, one
// on a shadow root its host: a delegated handler notes the element it is on, never its descendants
// (the page library then looks for cursor:pointer under it). Notes are never removed.
//
// The page can neither read nor forge the notes: they live in this closure (weak references, no
// attribute, no global), and the wrappers are proxies of the native functions that never throw. The
// page library asks for them with an event whose name (CHANNEL, random for each run of the app) the
// page never learns: an "ask" event on the window, answered synchronously by an "answer" event on
// each noted element still in the document, which the library's listener collects. Every native this
// uses is taken before any page script runs, and nothing goes through a prototype a page could
// change (the list has no prototype, nor have the event's options).
(function () {
  "use strict";
  var CHANNEL = "__JAWAD_CHANNEL__";
  var ASK = CHANNEL + "-ask", ANSWER = CHANNEL + "-answer";
  var TYPES = Object.create(null);
  ["click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "keydown"].forEach(
    function (type) { TYPES[type] = 1; });
  var PROPS = ["onclick", "ondblclick", "onmousedown", "onmouseup", "onpointerdown", "onpointerup",
               "ontouchstart", "onkeydown"];
  if (typeof Proxy !== "function" || typeof Reflect !== "object" || typeof WeakRef !== "function") return;
  // The natives, taken before any page script can replace them.
  var nodeTypeOf = Object.getOwnPropertyDescriptor(Node.prototype, "nodeType").get;
  var connectedOf = Object.getOwnPropertyDescriptor(Node.prototype, "isConnected").get;
  var hostOf = Object.getOwnPropertyDescriptor(ShadowRoot.prototype, "host").get;
  var rootElementOf = Object.getOwnPropertyDescriptor(Document.prototype, "documentElement").get;
  var apply = Reflect.apply, create = Object.create, Ref = WeakRef, deref = WeakRef.prototype.deref;
  var seen = new WeakSet(), seenHas = WeakSet.prototype.has, seenAdd = WeakSet.prototype.add;
  var NativeEvent = Event, dispatch = EventTarget.prototype.dispatchEvent;
  var stopNow = Event.prototype.stopImmediatePropagation;
  var doc = document, win = window;
  var notes = create(null), count = 0;  // index -> WeakRef of a noted element
  var answerOptions = create(null);
  answerOptions.bubbles = true;
  answerOptions.composed = true;  // reaches the window from inside open shadow roots too

  function note(target) {
    try {
      var el = null;
      if (target === win || target === doc) el = apply(rootElementOf, doc, []);
      else {
        var type = apply(nodeTypeOf, target, []);  // throws for what is not a node (caught)
        if (type === 1) el = target;
        else if (type === 11) el = apply(hostOf, target, []);  // throws for a plain fragment
      }
      if (el && !apply(seenHas, seen, [el])) {
        apply(seenAdd, seen, [el]);
        notes[count] = new Ref(el);
        count += 1;
      }
    } catch (e) { /* not a node, or a fragment that is no shadow root: nothing to note */ }
  }

  // The page library's question: each noted element still in the document answers; the list drops
  // the elements that are gone.
  function answer(event) {
    apply(stopNow, event, []);
    var kept = create(null), n = 0;
    for (var i = 0; i < count; i++) {
      var el = apply(deref, notes[i], []);
      if (!el) continue;
      kept[n] = notes[i];
      n += 1;
      if (apply(connectedOf, el, [])) apply(dispatch, el, [new NativeEvent(ANSWER, answerOptions)]);
    }
    notes = kept;
    count = n;
  }

  var proto = EventTarget.prototype;
  var native = proto.addEventListener;
  apply(native, win, [ASK, answer, true]);
  proto.addEventListener = new Proxy(native, {
    apply: function (fn, self, args) {
      if (args.length > 1 && args[1] && typeof args[0] === "string" && TYPES[args[0]] === 1) note(self);
      return apply(fn, self, args);
    }
  });

  // el.onclick = fn: the setter of each on* property, on elements (HTML and SVG).
  [HTMLElement.prototype, SVGElement.prototype].forEach(function (p) {
    PROPS.forEach(function (name) {
      var d = Object.getOwnPropertyDescriptor(p, name);
      if (!d || !d.set || !d.configurable) return;
      Object.defineProperty(p, name, {
        get: d.get, enumerable: d.enumerable, configurable: true,
        set: new Proxy(d.set, {
          apply: function (fn, self, args) {
            if (typeof args[0] === "function") note(self);
            return apply(fn, self, args);
          }
        })
      });
    });
  });
})();
