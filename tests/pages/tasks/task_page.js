// Shared by every task page (loaded before the page's own script): the seed's task, report(), and
// two small helpers to build and narrate the page.
// The task of this page's seed (?seed=N), and report(): the page says once whether it was solved.
var TASK_ID = document.documentElement.getAttribute("data-task");
var SEED = parseInt(new URLSearchParams(location.search).get("seed") || "1", 10) || 1;
var TASK = makeTask(SEED);
var DATA = TASK.data;
window.__task = TASK;
var reported = null;
function report(ok, detail) {
  if (reported !== null) return;  // the first verdict stands, as in MiniWoB
  reported = !!ok;
  document.documentElement.setAttribute("data-task-result", ok ? "ok" : "fail");
  var query = "task=" + encodeURIComponent(TASK_ID) + "&seed=" + SEED + "&ok=" + (ok ? 1 : 0) +
    "&detail=" + encodeURIComponent(detail || "");
  fetch("/done?" + query, { method: "POST", keepalive: true }).catch(function () {});
}
function h(tag, attrs) {
  var node = document.createElement(tag);
  for (var k in attrs || {}) {
    if (k === "text") node.textContent = attrs[k];
    else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
    else node.setAttribute(k, attrs[k]);
  }
  for (var i = 2; i < arguments.length; i++) { if (arguments[i] != null) node.append(arguments[i]); }
  return node;
}
function say(text, kind) {
  var s = document.getElementById("status");
  s.textContent = text;
  s.className = "status " + (kind || "");
}
