"""What an action changed, in words for the model: every acting tool says it (``tools.act``).

The page library takes a fingerprint of the page before the action (``J.changesMark``: its visible
controls, its open dialogs, its lines of text) and compares the page with it after the action has
settled (``J.changesSince``). ``PageChanges.from_js`` holds that answer and ``summary`` words it:
a dialog that opened or closed, a section or menu that expanded or collapsed (a control whose
``aria-expanded`` flipped), the controls that appeared or went (a control re-rendered as its
twin counts as neither), new lines of text (a status message, a validation error), a changed
picture (what is drawn, not written: a game's pieces, a canvas), or that the page did not visibly
change. A field's value read back after typing (``page.FieldReadback``) is worded by
``field_sentence``: refused, cut at the field's maxlength, rewritten by the page, or marked invalid;
a password's characters are never in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jawad_desktop.core.tools.browser.provenance import find_injections, wrap_untrusted
from jawad_desktop.core.tools.page import FieldReadback

LISTED = 5  # controls named per kind of change; the rest are counted


@dataclass(frozen=True, slots=True)
class Dialog:
    """A dialog that opened: its name and the start of its text."""

    label: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class PageChanges:
    """The difference between the page before an action and after it (``J.changesSince``)."""

    fresh: bool = False  # a new document: the action loaded another page (nothing to compare)
    url: str = ""
    url_before: str = ""
    added: tuple[str, ...] = ()  # 'button "Confirm"'
    added_count: int = 0
    removed: tuple[str, ...] = ()
    removed_count: int = 0
    rerendered: int = 0
    dialogs_opened: tuple[Dialog, ...] = ()
    dialogs_closed: tuple[str, ...] = ()
    new_text: tuple[str, ...] = ()
    expanded: tuple[str, ...] = ()  # 'button "Filters"': what it controls opened
    collapsed: tuple[str, ...] = ()
    values: tuple[str, ...] = ()  # 'slider "Volume" is now "60 %" (was "15 %")'
    # The fingerprint of what the page draws (canvas, SVG, empty coloured boxes) when it changed: the
    # same picture gives the same one, so a model, and the loop guard, tell states apart by it.
    drawn: str = ""
    picture: str = ""  # that fingerprint after the action, changed or not ("" when nothing is drawn)

    @classmethod
    def from_js(cls, data: Any) -> PageChanges | None:
        """From the page library's answer; None when it is not one."""
        if not isinstance(data, dict) or not data.get("ok"):
            return None

        def controls(key: str) -> tuple[str, ...]:
            return tuple(_control(c) for c in data.get(key) or [] if isinstance(c, dict))

        return cls(
            fresh=bool(data.get("fresh", False)),
            url=str(data.get("url", "")),
            url_before=str(data.get("urlBefore", "")),
            added=controls("added"),
            added_count=int(data.get("addedCount", 0) or 0),
            removed=controls("removed"),
            removed_count=int(data.get("removedCount", 0) or 0),
            rerendered=int(data.get("rerendered", 0) or 0),
            dialogs_opened=tuple(Dialog(str(d.get("label", "")), str(d.get("text", "")))
                                 for d in data.get("dialogsOpened") or [] if isinstance(d, dict)),
            dialogs_closed=tuple(str(d) for d in data.get("dialogsClosed") or []),
            new_text=tuple(str(t) for t in data.get("newText") or [] if str(t).strip()),
            expanded=controls("expanded"),
            collapsed=controls("collapsed"),
            values=tuple(_value_change(c) for c in data.get("values") or [] if isinstance(c, dict)),
            drawn=str(data.get("drawn") or ""),
            picture=str(data.get("picture") or ""),
        )

    @property
    def nothing(self) -> bool:
        """Nothing the model can see changed (an element re-rendered as itself is no change)."""
        return not (self.fresh or self.added_count or self.removed_count or self.dialogs_opened
                    or self.dialogs_closed or self.new_text or self.expanded or self.collapsed or self.values
                    or self.drawn or (self.url_before and self.url != self.url_before))

    def summary(self, *, with_url: bool = True) -> str:
        """The changes in a few sentences ("" for a new document: the navigation is said elsewhere);
        ``with_url=False`` leaves out a new address (the caller says it)."""
        if self.fresh:
            return ""
        # The picture's number, unchanged, after every action on a page that draws: the same action
        # from another state of a game (a peg selected with the disks elsewhere) is no repeat.
        same = f" Its picture is #{self.picture}, as before." if self.picture and not self.drawn else ""
        if self.nothing:
            return "The page did not visibly change." + same
        parts: list[str] = []
        if with_url and self.url_before and self.url != self.url_before:
            parts.append(f"The address is now {self.url}.")
        for dialog in self.dialogs_opened:
            name = f' "{dialog.label}"' if dialog.label else ""
            text = dialog.text if dialog.text and dialog.text != dialog.label else ""
            parts.append(f"A dialog{name} opened" + (f': "{text}".' if text else "."))
        for name in self.dialogs_closed:
            parts.append(f'The dialog "{name}" closed.' if name else "A dialog closed.")
        if self.expanded:
            parts.append(f"Opened (expanded): {', '.join(self.expanded)}.")
        if self.collapsed:
            parts.append(f"Closed (collapsed): {', '.join(self.collapsed)}.")
        if self.values:
            parts.append(f"Values now: {'; '.join(self.values)}.")
        if self.added_count:
            parts.append(_counted(self.added_count, "new element", self.added))
        if self.removed_count:
            parts.append(_counted(self.removed_count, "element", self.removed, " gone"))
        alone = self.drawn and not (parts or self.new_text or self.added_count or self.removed_count)
        if alone:
            parts.append(f"What the page draws or where its controls stand changed (not its words): its picture "
                         f"is now #{self.drawn} (the same number means the same picture; look shows it).")
        elif self.drawn:
            same = f" Its picture is now #{self.drawn}."
        text = " ".join(parts)
        if self.new_text:
            shown = " / ".join(f'"{line}"' for line in self.new_text)
            lines = "\n".join(self.new_text)
            # New page text is data like the rest of the page: wrapped when it speaks to an assistant.
            text += (" New text on the page: " + (wrap_untrusted(lines, self.url) if find_injections(lines)
                                                   else shown + "."))
        return (text + same).strip()


def _control(data: dict[str, Any]) -> str:
    role, label = str(data.get("role", "")).lower() or "element", str(data.get("label", ""))
    return f'{role} "{label}"' if label else role


def _value_change(data: dict[str, Any]) -> str:
    was = str(data.get("was", ""))
    return f'{_control(data)} = "{data.get("value", "")}"' + (f' (was "{was}")' if was else "")


def _counted(count: int, noun: str, named: tuple[str, ...], after: str = "") -> str:
    listed = ", ".join(named[:LISTED])
    more = f", and {count - len(named[:LISTED])} more" if count > len(named[:LISTED]) else ""
    plural = "s" if count != 1 else ""
    return f"{count} {noun}{plural}{after}: {listed}{more}."


def field_sentence(field: FieldReadback, *, hint: str = "") -> str:
    """What the page kept of a typed value, when it is not exactly what was typed ("" when it is).
    ``hint`` says the format the field takes (``values.format_hint``), for a value it refused."""
    if field.same:
        return _invalid(field).strip()
    held = (f"{field.length} characters" if field.secret else f'"{field.value}"') if field.length else ""
    if field.max_length >= 0 and field.typed_length > field.max_length and field.length <= field.max_length:
        what = f"the first {field.length}" if field.secret else held
        return (f"The field accepts at most {field.max_length} characters, so it holds only {what} "
                f"of the {field.typed_length} typed." + _invalid(field))
    if not field.length:
        return ("The field refused the value: it is empty now." + (f" {hint}" if hint else "")
                + " Give the value in the format the field takes.")
    if field.kind in ("range", "number") and (field.min or field.max or field.step):
        limits = ", ".join(p for p in (f"from {field.min}" if field.min else "", f"to {field.max}" if field.max else "",
                                       f"in steps of {field.step}" if field.step else "") if p)
        return f"The field holds {held} instead (it takes values {limits})." + _invalid(field)
    return f"The page changed the value: the field holds {held}." + _invalid(field)


def _invalid(field: FieldReadback) -> str:
    return f' The page marks the value invalid: "{field.invalid}".' if field.invalid else ""
