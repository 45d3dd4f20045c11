// Jawad's page library. It runs in an isolated JavaScript world (the page's own scripts cannot
// see it or tamper with it) and installs one object, window.__jawad, that the browser tools call.
// Every entry point returns a JSON string so results cross into Python unchanged.
// Elements in same-origin iframes and open shadow roots are reached by walking into them; their
// selectors join the steps with " >>> " (host or iframe selector, then the selector inside it).
(function () {
  "use strict";
  if (window.__jawad && window.__jawad.version === 1) return;
