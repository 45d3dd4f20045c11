// Refuses the script addresses (javascript:...) a page's own script, link, redirect or frame goes to in
// a document loaded while the agent acts (issue 28: web addresses only). Chromium runs such a navigation
// inside the page's renderer: no navigation request reaches the browser, so neither
// acceptNavigationRequest nor the request interceptor sees it, and `location` cannot be wrapped.
// Trusted Types can: once `require-trusted-types-for 'script'` is in force, a javascript: navigation is
// handed to the default policy's createScript (sink "Location href") and refused when that returns null.
//
// This runs in the page's MAIN world at document creation, before any page script: it makes the default
// policy, which refuses a javascript: navigation unless its script is a no-op such as "void(0)" (the
// page's click handler acts; the rule is core/sites.py's NO_OP_SCRIPT, put in by guarded_page.py) and
// passes every other value (innerHTML, eval, script text, script URLs...) through unchanged (unless the
// page's own CSP already requires trusted types: then it refuses them, as the browser would), then puts
// the requirement in force with a CSP <meta> it removes at once (a policy a meta delivered stays).
// A page that makes its own default policy gets this one back, whose rules become the page's (each
// value still goes through the page's rule; only a script address is refused first). A same-origin
// frame made without an address (about:blank) inherits the requirement before any script of ours runs
// in it: the policy is made in its window when the page reaches it (contentWindow, contentDocument,
// window.open). Where no default policy can be made (a page whose own CSP names its policies), nothing
// is put in force: the page works as it would without us.
//
// The agent's own isolated world (the page library, Readability) is held to the requirement too, so
// this runs there as well (MAIN_WORLD false), where it only makes that world's default policy.
(function () {
  "use strict";
  var factory = window.trustedTypes;
  if (!factory || typeof factory.createPolicy !== "function" || typeof Proxy !== "function") return;
  var NO_OP = new RegExp(__JAWAD_NO_OP__, "i"), MAIN_WORLD = __JAWAD_MAIN_WORLD__;
  var apply = Reflect.apply, test = RegExp.prototype.test, create = Object.create;
  var describe = Object.getOwnPropertyDescriptor, define = Object.defineProperty;
  var Factory = TrustedTypePolicyFactory.prototype;
  var createPolicy = Factory.createPolicy, defaultOf = describe(Factory, "defaultPolicy").get;
  var KINDS = ["createHTML", "createScript", "createScriptURL"];
  var pageRules = null;  // the rules of the page's own default policy, once it makes one
  // Whether the page requires trusted types itself (its own CSP): then a value no rule of the page's
  // vouches for is refused, as it would be without this policy; found by a probe, below.
  var strict = false, probing = false;

  function rule(kind) {
    return function (value) {
      if (probing) {
        strict = true;
        return value;
      }
      var own = pageRules && pageRules[kind];
      if (typeof own === "function") return apply(own, undefined, arguments);
      return strict ? null : value;
    };
  }
  var html = rule("createHTML"), script = rule("createScript");
  var rules = create(null);
  rules.createHTML = html;
  rules.createScriptURL = rule("createScriptURL");
  rules.createScript = function (value, type, sink) {
    if (sink === "Location href" && !apply(test, NO_OP, ["" + value])) return null;  // refused
    return apply(script, undefined, arguments);
  };

  // The default policy of a window (this one, or a same-origin frame's); false where none can be made.
  function guard(win) {
    try {
      var its = win.trustedTypes;
      if (apply(defaultOf, its, [])) return true;
      return !!apply(createPolicy, its, ["default", rules]);
    } catch (e) { return false; }  // another origin's frame, or a CSP that names its policies
  }
  if (!guard(window) || !MAIN_WORLD) return;
  // Markup written before the requirement below is in force reaches this policy only if the page's
  // own CSP already requires trusted types.
  probing = true;
  try { document.createElement("div").innerHTML = ""; } catch (e) { /* no document to probe */ }
  probing = false;
  var ours = apply(defaultOf, factory, []);

  // The page's own default policy: this one comes back and takes the page's rules.
  define(Factory, "createPolicy", {
    value: new Proxy(createPolicy, {
      apply: function (target, self, args) {
        if (self === factory && args[0] === "default" && pageRules === null) {
          var given = args[1], taken = create(null);
          for (var i = 0; i < KINDS.length; i += 1) taken[KINDS[i]] = given ? given[KINDS[i]] : undefined;
          pageRules = taken;
          return ours;
        }
        return apply(target, self, args);
      }
    }), writable: true, enumerable: true, configurable: true
  });

  // A frame or window without an address, reached before any script of ours ran in it.
  function reaching(proto, name, windowOf) {
    var desc = proto && describe(proto, name);
    if (!desc || typeof desc.get !== "function") return;
    desc.get = new Proxy(desc.get, {
      apply: function (target, self, args) {
        var got = apply(target, self, args);
        if (got) guard(windowOf(got));
        return got;
      }
    });
    define(proto, name, desc);
  }
  var viewOf = describe(Document.prototype, "defaultView").get;
  function itself(win) { return win; }
  function viewOfDocument(doc) { try { return apply(viewOf, doc, []); } catch (e) { return null; } }
  [window.HTMLIFrameElement, window.HTMLFrameElement, window.HTMLObjectElement].forEach(function (kind) {
    if (!kind) return;
    reaching(kind.prototype, "contentWindow", itself);
    reaching(kind.prototype, "contentDocument", viewOfDocument);
  });
  var open = window.open;
  define(window, "open", {
    value: new Proxy(open, {
      apply: function (target, self, args) {
        var got = apply(target, self, args);
        if (got) guard(got);
        return got;
      }
    }), writable: true, enumerable: true, configurable: true
  });

  // The requirement, by a <meta> that is gone before the page's parser starts.
  try {
    var doc = document, meta = doc.createElement("meta"), head = doc.createElement("head");
    meta.setAttribute("http-equiv", "Content-Security-Policy");
    meta.setAttribute("content", "require-trusted-types-for 'script'");
    head.appendChild(meta);
    var root = doc.documentElement;
    if (root) {
      root.appendChild(head);
      root.removeChild(head);
    } else {
      var shell = doc.createElement("html");
      shell.appendChild(head);
      doc.appendChild(shell);
      doc.removeChild(shell);
    }
  } catch (e) { /* not an HTML document: no meta there */ }
})();
