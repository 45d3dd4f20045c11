  // -- the one door: J.call runs an entry point and returns its JSON (the last module before close.js)
  J.call = function (name, args) {
    var outer = markCache === null;
    if (outer) markCache = new Map();  // the page's handlers asked once per document per call
    try {
      return JSON.stringify(J[name].apply(null, args || []));
    } catch (e) {
      return JSON.stringify({ ok: false, error: "script_error", message: String(e && e.message || e) });
    } finally {
      if (outer) markCache = null;
    }
  };
