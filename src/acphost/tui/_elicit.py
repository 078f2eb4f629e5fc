"""Elicitation (ACP ``elicitation/create``): the agent asks the user for input.

Two modes, both advertised (``clientCapabilities.elicitation.form`` and
``.url``) because both are served here:

- **form**: :class:`FormScreen` builds a dialog from the requested schema
  (text, numbers, booleans, single and multiple choices; required fields,
  defaults, a message under each field that needs fixing);
- **url**: :class:`UrlScreen` shows the URL the agent wants the user to
  visit (opened in the browser only on request); once accepted, the
  transcript keeps a card that waits for ``elicitation/complete``.

Every answer reaches the agent: ``accept`` (with the content), ``decline``
or ``cancel``. The dialogs are guarded like the permission dialog: no field
takes focus, and no key counts, until the guard time has passed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, RadioButton, RadioSet, SelectionList, Static

from .. import schema as s
from ..host import FormField, check_form, form_fields
from ._asks import AskQueue
from ._modal import OnceModal
from ._safe import agent_line, agent_text

__all__ = ["FormScreen", "TuiElicitation", "UrlScreen"]

ACCEPT = "accept"
DECLINE = "decline"
CANCEL = "cancel"


def response(action: str, content: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``CreateElicitationResponse`` wire object."""
    out: dict[str, Any] = {"action": action}
    if content is not None:
        out["content"] = content
    return out


class TuiElicitation:
    """The TUI's :class:`~acphost.client.ElicitationHandler`: questions join the ask queue.

    Args:
        queue: where the question waits for its dialog (one at a time, with
            the permission requests, in arrival order).
        on_complete: called with an ``elicitationId`` when the agent sends
            ``elicitation/complete``.

    """

    form = True
    url = True

    def __init__(self, queue: AskQueue, on_complete: Callable[[str], None]) -> None:
        self.queue = queue
        self.on_complete = on_complete

    async def __call__(self, request: s.CreateElicitationRequest) -> dict[str, Any]:
        """Ask the user; modes other than form and url are declined (not advertised)."""
        if request.mode not in ("form", "url"):
            return response(DECLINE)
        return await self.queue.elicit(request)

    def complete(self, elicitation_id: str) -> None:
        """The agent says a URL elicitation finished."""
        self.on_complete(elicitation_id)


_DIALOG_CSS = """
    {cls} {{ align: center middle; }}
    {cls} > Vertical {{
        width: 90%; max-width: 90; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }}
    {cls} .el-title {{ text-style: bold; color: $accent; }}
    {cls} .el-message {{ margin-bottom: 1; }}
    {cls} .el-hint {{ color: $text-muted; }}
    {cls} Horizontal {{ height: auto; }}
    {cls} Button {{ margin-right: 1; min-width: 10; }}
"""


class FormScreen(OnceModal[dict[str, Any]]):
    """A form built from an elicitation's requested schema."""

    DEFAULT_CSS = (
        _DIALOG_CSS.format(cls="FormScreen")
        + """
    FormScreen VerticalScroll { height: auto; max-height: 20; }
    FormScreen .field { height: auto; margin-bottom: 1; }
    FormScreen .field-label { text-style: bold; }
    FormScreen .field-error { color: $error; display: none; }
    FormScreen .field-error.-shown { display: block; }
    FormScreen Input, FormScreen RadioSet, FormScreen SelectionList { width: 1fr; }
    FormScreen SelectionList { height: auto; max-height: 8; }
    """
    )
    # Nothing takes keys until the guard has passed ("" disables auto focus;
    # None would inherit the app's "*" and focus the first field at once).
    AUTO_FOCUS: ClassVar[str | None] = ""

    def __init__(self, request: s.CreateElicitationRequest, *, guard: float | None = 0.5) -> None:
        super().__init__(guard=guard)
        self.request = request
        self.fields: list[FormField] = form_fields(request.requested_schema)
        self.widgets: dict[str, Widget] = {}

    def compose(self) -> ComposeResult:
        """Message, fields, buttons."""
        schema = self.request.requested_schema
        with Vertical():
            yield Static(
                agent_line((schema.title if schema else None) or "The agent asks for input"),
                classes="el-title",
            )
            yield Static(agent_text(self.request.message), classes="el-message")
            with VerticalScroll():
                for f in self.fields:
                    with Vertical(classes="field"):
                        label = agent_line(f.title)
                        if f.required:
                            label.append(" *", style="bold red")
                        yield Static(label, classes="field-label")
                        if f.description:
                            yield Static(agent_text(f.description), classes="el-hint")
                        widget = self._field_widget(f)
                        self.widgets[f.name] = widget
                        yield widget
                        if f.hint():
                            yield Static(agent_line(f.hint()), classes="el-hint")
                        yield Static("", classes="field-error", id=f"error-{len(self.widgets)}")
            with Horizontal():
                yield Button("Accept", variant="primary", id="accept")
                yield Button("Decline", id="decline")
                yield Button("Cancel", id="cancel")
            yield Static(
                Text("Tab next field · Ctrl+S accept · Esc cancel · * required"),
                classes="el-hint",
            )

    def _field_widget(self, f: FormField) -> Widget:
        if f.kind == "boolean":
            # Labels are Text, never str: a str label is parsed as markup.
            return Checkbox(agent_line(f.title), value=bool(f.default))
        if f.kind == "choice":
            return RadioSet(
                *[
                    RadioButton(agent_line(label), value=value == f.default)
                    for value, label in f.choices
                ]
            )
        if f.kind == "multi":
            chosen = set(f.default or ())
            return SelectionList[str](
                *[(agent_line(label), value, value in chosen) for value, label in f.choices]
            )
        if f.kind == "unsupported":
            return Static(Text("(a field of a kind this client cannot show)", style="dim"))
        default = "" if f.default is None else str(f.default)
        kind: Literal["integer", "number", "text"] = (
            "integer" if f.kind == "integer" else "number" if f.kind == "number" else "text"
        )
        return Input(value=default, type=kind)

    def on_mount(self) -> None:
        """Give the first field focus once the guard has passed."""
        if self.guard:
            self.set_timer(self.guard, self._focus_first)
        else:
            self._focus_first()

    def _focus_first(self) -> None:
        if self.answered:
            return
        if not self.armed:  # still typing (see OnceModal): look again in a moment
            self.set_timer(0.1, self._focus_first)
            return
        self.engage()  # typing into the field is filling the form: no pause before Enter
        for widget in self.widgets.values():
            if widget.can_focus:
                widget.focus()
                return
        self.query_one("#accept", Button).focus()

    def values(self) -> dict[str, Any]:
        """What the widgets hold now, by field name (unchecked)."""
        out: dict[str, Any] = {}
        for f in self.fields:
            widget = self.widgets[f.name]
            if isinstance(widget, Checkbox):
                out[f.name] = widget.value
            elif isinstance(widget, RadioSet):
                index = widget.pressed_index
                out[f.name] = f.choices[index][0] if index >= 0 else None
            elif isinstance(widget, SelectionList):
                out[f.name] = list(widget.selected)
            elif isinstance(widget, Input):
                out[f.name] = widget.value.strip() if f.kind != "string" else widget.value
        return out

    def submit(self) -> bool:
        """Accept when every field checks out, else show what to fix; True if accepted."""
        content, problems = check_form(self.fields, self.values())
        first_bad: Widget | None = None
        for n, f in enumerate(self.fields, 1):
            error = self.query_one(f"#error-{n}", Static)
            problem = problems.get(f.name, "")
            error.update(Text(f"✗ {problem}" if problem else ""))
            error.set_class(bool(problem), "-shown")
            if problem and first_bad is None:
                first_bad = self.widgets[f.name]
        if first_bad is not None:
            if first_bad.can_focus:
                first_bad.focus()
            return False
        return self.answer(response(ACCEPT, content))

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        if not self.accepts():
            return
        if event.button.id == "accept":
            self.submit()
        elif event.button.id == "decline":
            self.answer(response(DECLINE))
        else:
            self.answer(response(CANCEL))

    @on(Input.Submitted)
    def _enter(self, event: Input.Submitted) -> None:
        """Enter in a field moves on; in the last field it accepts."""
        event.stop()
        inputs = [w for w in self.widgets.values() if w.can_focus]
        if inputs and event.input is inputs[-1]:
            if self.accepts():
                self.submit()
        else:
            self.focus_next()

    def on_key(self, event: Key) -> None:
        """Guarded keys; Ctrl+S accepts, Esc cancels."""
        if event.key not in ("ctrl+s", "escape"):
            self.note_key(event)
            if self.focused is None:  # not armed yet: Tab must not reach a field
                event.stop()
                event.prevent_default()
            return
        if not self.accepts_key(event):
            return
        if event.key == "ctrl+s":
            event.stop()
            self.submit()
        elif event.key == "escape":
            event.stop()
            self.answer(response(CANCEL))


class UrlScreen(OnceModal[dict[str, Any]]):
    """The agent asks the user to visit a URL (to log in, to authorise...)."""

    DEFAULT_CSS = (
        _DIALOG_CSS.format(cls="UrlScreen")
        + """
    UrlScreen .el-url { text-style: bold; background: $boost; padding: 0 1; }
    """
    )
    AUTO_FOCUS: ClassVar[str | None] = ""

    _KEYS: ClassVar[dict[str, str]] = {"o": "open", "a": ACCEPT, "d": DECLINE, "escape": CANCEL}

    def __init__(
        self,
        request: s.CreateElicitationRequest,
        open_url: Callable[[str], None],
        *,
        guard: float | None = 0.5,
    ) -> None:
        super().__init__(guard=guard)
        self.request = request
        self.open_url = open_url

    def compose(self) -> ComposeResult:
        """Message, the URL in full, keys."""
        with Vertical():
            yield Static(Text("The agent asks you to open a page"), classes="el-title")
            yield Static(agent_text(self.request.message), classes="el-message")
            yield Static(agent_line(self.request.url or ""), classes="el-url")
            yield Static(
                Text(
                    "o open it in the browser (and accept) · a accept (open it yourself) · "
                    "d decline · Esc cancel"
                ),
                classes="el-hint",
            )

    def on_key(self, event: Key) -> None:
        """``o``, ``a``, ``d`` or Esc, guarded."""
        what = self._KEYS.get(event.character or "") or self._KEYS.get(event.key)
        if what is None:
            self.note_key(event)
            return
        if not self.accepts_key(event):
            return
        event.stop()
        if what == "open":
            if self.request.url:
                self.open_url(self.request.url)
            what = ACCEPT
        self.answer(response(what))
