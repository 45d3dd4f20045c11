  // -- open menus, listboxes and dialogs, with their entries (read_page shows them near the top) --
  // What is open over the page: an open dialog (role, aria-modal, <dialog open>, an open popover),
  // and a listbox or menu that an expanded control opened (a combobox's suggestions, a menu button's
  // menu) or that floats over the page. A listbox or menu laid out in the page is not a popup.
  var ENTRY_SEL = "[role=option], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio]";
  var DIALOG_ENTRY_SEL = "a[href], button, [role=button], [role=link], input:not([type=hidden]), select, textarea";
  var POPUPS_MAX = 5, POPUP_ENTRIES_MAX = 30, DIALOG_ENTRIES_MAX = 10;

  function floats(el) {
    for (var n = el, depth = 0; n && n.nodeType === 1 && depth < 4; n = n.parentElement, depth++) {
      var pos = getComputedStyle(n).position;
      if (pos === "absolute" || pos === "fixed") return true;
    }
    return false;
  }

  // The popups that expanded controls say they opened (aria-controls, aria-owns), with the control.
  function popupOwners() {
    var owners = new Map();
    var toggles = document.querySelectorAll(TOGGLE_SEL);
    for (var i = 0; i < toggles.length; i++) {
      var ids = ((toggles[i].getAttribute("aria-controls") || "") + " " +
                 (toggles[i].getAttribute("aria-owns") || "")).split(/\s+/);
      for (var k = 0; k < ids.length; k++) {
        var box = ids[k] ? document.getElementById(ids[k]) : null;
        if (box && !owners.has(box)) owners.set(box, toggles[i]);
      }
    }
    siblingPopups().forEach(function (toggle, popup) { if (!owners.has(popup)) owners.set(popup, toggle); });
    return owners;
  }

  // An expanded toggle that names nothing it controls (Bootstrap's dropdown button): its popup is the
  // element right after it, when that floats over the page.
  function siblingPopups() {
    var out = new Map();
    var toggles = document.querySelectorAll("[aria-expanded=true]:not([aria-controls]):not([aria-owns]):not([role=tab])");
    for (var i = 0; i < toggles.length && out.size < 10; i++) {
      var box = toggles[i].nextElementSibling;
      if (box && !out.has(box) && floats(box) && isVisible(box) && box.querySelector("a, button, li, [role=menuitem]")) {
        out.set(box, toggles[i]);
      }
    }
    return out;
  }

  // A control that says it expanded what it controls; a tab's panel or an accordion's section is
  // laid out in the page, not a popup.
  var TOGGLE_SEL = "[aria-expanded=true][aria-controls]:not([role=tab]), [aria-expanded=true][aria-owns]:not([role=tab])";

  // The suggestions a text field shows as one types (an autocomplete's list): a list floating just
  // under the focused field, even when no ARIA says so (jQuery UI's autocomplete, home-made ones).
  var SUGGEST_SEL = "ul, ol, [role=listbox], [role=menu], [class*=suggest], [class*=autocomplete], [class*=typeahead], " +
                    "[class*=complet], [class*=results], [class*=dropdown-menu]";
  function suggestionsBox() {
    var field = document.activeElement;
    while (field && field.shadowRoot && field.shadowRoot.activeElement) field = field.shadowRoot.activeElement;
    if (!field || !matchesSafe(field, "input, textarea, [role=combobox], [role=searchbox], [role=textbox]")) return null;
    var f = field.getBoundingClientRect();
    var boxes = document.querySelectorAll(SUGGEST_SEL), best = null;
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      if (box.contains(field) || !floats(box)) continue;
      var r = visibleRect(box);
      if (!r || r.top < f.bottom - 6 || r.top > f.bottom + 40 || r.right < f.left || r.left > f.right) continue;
      if (!box.querySelector("li, [role=option], a, button, [role=menuitem], div")) continue;
      if (!best || best.contains(box)) best = box;  // the outermost such list
    }
    return best ? { box: best, field: field } : null;
  }

  function popupKindOf(el) {
    var role = (el.getAttribute("role") || "").toLowerCase();
    if (role === "listbox" || role === "menu") return role;
    if (role === "dialog" || role === "alertdialog" || el.tagName === "DIALOG" ||
        el.getAttribute("aria-modal") === "true" || el.hasAttribute("popover")) return "dialog";
    return el.querySelector("[role=option]") ? "listbox" : "menu";
  }

  function ownLabel(el) {
    var aria = el.getAttribute("aria-label");
    if (aria) return clip(aria, 80);
    var by = el.getAttribute("aria-labelledby");
    if (!by) return "";
    return clip(by.split(/\s+/).map(function (id) {
      var n = el.ownerDocument.getElementById(id); return n ? n.textContent : "";
    }).join(" "), 80);
  }

  function popupReport() {
    var owners = popupOwners();
    var nodes = Array.prototype.slice.call(document.querySelectorAll(
      "dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true], [role=listbox], [role=menu], [popover]"));
    owners.forEach(function (_owner, box) { if (nodes.indexOf(box) < 0) nodes.push(box); });
    var typed = suggestionsBox();
    if (typed && !owners.has(typed.box)) {
      owners.set(typed.box, typed.field);
      if (nodes.indexOf(typed.box) < 0) nodes.push(typed.box);
    }
    var found = [], out = [];
    for (var i = 0; i < nodes.length && out.length < POPUPS_MAX; i++) {
      var el = nodes[i], kind = popupKindOf(el), owner = owners.get(el) || null;
      if (typed && el === typed.box && kind === "menu") kind = "listbox";  // suggestions to pick from
      if (el.hasAttribute("popover") && !matchesSafe(el, ":popover-open")) continue;
      if (el.getAttribute("aria-hidden") === "true" || !isVisible(el)) continue;
      if (kind !== "dialog" && !owner && !floats(el)) continue;  // a list laid out in the page
      var inside = false;
      for (var f = 0; f < found.length && !inside; f++) inside = found[f].el.contains(el) && found[f].kind === kind;
      if (inside) continue;  // a submenu is read with its menu
      var items = el.querySelectorAll(ENTRY_SEL);
      if (!items.length) items = el.querySelectorAll(kind === "dialog" ? DIALOG_ENTRY_SEL : "li, " + DIALOG_ENTRY_SEL);
      var entries = [], count = 0, most = kind === "dialog" ? DIALOG_ENTRIES_MAX : POPUP_ENTRIES_MAX;
      for (var k = 0; k < items.length; k++) {
        var item = items[k];
        if (!isVisible(item)) continue;
        count++;
        if (entries.length >= most) continue;
        var entry = { text: clip(item.innerText || labelOf(item), 80), index: J.refs.indexOf(item) };
        if (entry.index < 0) {  // an entry that is not itself listed: the listed element inside it
          for (var r = 1; r < J.refs.length && entry.index < 0; r++) if (item.contains(J.refs[r])) entry.index = r;
        }
        if (item.getAttribute("aria-selected") === "true" || item.getAttribute("aria-checked") === "true" ||
            item.getAttribute("aria-current") === "true") entry.selected = true;
        if (item.getAttribute("aria-disabled") === "true" || item.disabled) entry.disabled = true;
        entries.push(entry);
      }
      var report = { kind: kind, label: ownLabel(el), entries: entries, count: count };
      if (owner) report.owner = { role: roleOf(owner), label: labelOf(owner) };
      if (kind === "dialog") report.text = clip(el.innerText || "", 300);
      found.push({ el: el, kind: kind });
      out.push(report);
    }
    return out;
  }
