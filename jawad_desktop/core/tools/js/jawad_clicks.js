// Marks the elements a page's own scripts make clickable. The page library (jawad_page.js) runs in
// an isolated world and cannot see the page's listeners, so this runs in the page's MAIN world at
// document creation, before any page script, and wraps addEventListener and the on* property
// setters: an element that gets a click, mousedown, mouseup, pointerdown, pointerup, touchstart or
// keydown handler gets the attribute data-jawad-click (the only trace the page can see: no global,
// the wrappers are proxies of the native functions, and they never throw). A handler on the
// document or the window marks <html> and one on a shadow root marks its host: a delegated
// handler marks the element it is on, never its descendants (the page library then looks for
// cursor:pointer under it). Marks are never removed: a removed handler leaves a harmless mark.
(function () {
  "use strict";
  var ATTR = "data-jawad-click";
  var TYPES = { click: 1, dblclick: 1, mousedown: 1, mouseup: 1, pointerdown: 1, pointerup: 1,
                touchstart: 1, keydown: 1 };
  var PROPS = ["onclick", "ondblclick", "onmousedown", "onmouseup", "onpointerdown", "onpointerup",
               "ontouchstart", "onkeydown"];
  if (typeof Proxy !== "function" || typeof Reflect !== "object") return;
  // The natives, taken before any page script can replace them.
  var nodeTypeOf = Object.getOwnPropertyDescriptor(Node.prototype, "nodeType").get;
  var hostOf = Object.getOwnPropertyDescriptor(ShadowRoot.prototype, "host").get;
  var rootElementOf = Object.getOwnPropertyDescriptor(Document.prototype, "documentElement").get;
  var hasAttr = Element.prototype.hasAttribute, setAttr = Element.prototype.setAttribute;
  var apply = Reflect.apply, doc = document, win = window;

  function mark(target) {
    try {
      var el = null;
      if (target === win || target === doc) el = apply(rootElementOf, doc, []);
      else {
        var type = apply(nodeTypeOf, target, []);  // throws for what is not a node (caught)
        if (type === 1) el = target;
        else if (type === 11) el = apply(hostOf, target, []);  // throws for a plain fragment
      }
      if (el && !apply(hasAttr, el, [ATTR])) apply(setAttr, el, [ATTR, ""]);
    } catch (e) { /* not a node, or a fragment that is no shadow root: nothing to mark */ }
  }

  var proto = EventTarget.prototype;
  var native = proto.addEventListener;
  proto.addEventListener = new Proxy(native, {
    apply: function (fn, self, args) {
      if (args.length > 1 && args[1] && typeof args[0] === "string" && TYPES[args[0]] === 1) mark(self);
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
            if (typeof args[0] === "function") mark(self);
            return apply(fn, self, args);
          }
        })
      });
    });
  });
})();
