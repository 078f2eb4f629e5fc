"""The prompt composer: multiline input, ``@`` files, ``/`` commands, history.

Enter sends; Ctrl+J (or Shift/Alt+Enter where the terminal reports it)
inserts a newline. Typing ``@`` opens a fuzzy list of workspace files, ``/``
at the start opens the agent's slash commands (``available_commands_update``);
Tab or Enter accepts, Esc closes the list. Up/Down on the first/last line
browse the prompt history. Enter on an empty prompt asks for the next queued
prompt (a queue left waiting by a cancel goes on).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Key
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from .. import schema as s
from ._completion import PromptHistory, command_matches, fuzzy_rank, workspace_files
from ._safe import sanitize_line

__all__ = ["Composer", "PromptArea"]


class CompletionMenu(OptionList, can_focus=False):
    """The completion list shown above the input."""

    DEFAULT_CSS = """
    CompletionMenu {
        display: none;
        height: auto;
        max-height: 8;
        border: none;
        background: $panel;
    }
    CompletionMenu.-visible { display: block; }
    """


class PromptArea(TextArea):
    """The text input; see the module docstring for keys."""

    DEFAULT_CSS = """
    PromptArea {
        height: auto;
        min-height: 1;
        max-height: 6;
        border: none;
        padding: 0 1;
        background: $boost;
    }
    PromptArea:focus { border: none; }
    """

    class Submitted(Message):
        """The user pressed Enter on a non-empty prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class SendNext(Message):
        """The user pressed Enter on an empty prompt (a waiting queue may go on)."""

    def __init__(self, cwd: str, menu: CompletionMenu, **kwargs: object) -> None:
        super().__init__(
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            **kwargs,  # type: ignore[arg-type]
        )
        self.cwd = cwd
        self.menu = menu
        self.prompt_history = PromptHistory()
        self.commands: list[s.AvailableCommand] = []
        self._files: list[str] | None = None
        self._token = ""
        self._mode = ""  # "file", "command" or ""
        self._values: list[str] = []

    # -- completion -----------------------------------------------------------------

    def _files_list(self) -> list[str]:
        if self._files is None:
            self._files = workspace_files(self.cwd)
        return self._files

    def _token_at_cursor(self) -> tuple[str, bool]:
        row, col = self.cursor_location
        line = self.document.get_line(row)[:col]
        if not line or line[-1].isspace():
            return "", False
        token = line.split()[-1]
        return token, row == 0 and token == line

    def update_completions(self) -> None:
        """Recompute the list for the token under the cursor."""
        token, first = self._token_at_cursor()
        options: list[Option] = []
        values: list[str] = []
        mode = ""
        if token.startswith("@"):
            mode = "file"
            query = token[1:].strip('"')
            for path in fuzzy_rank(query, self._files_list(), limit=12):
                values.append("@" + (f'"{path}"' if " " in path else path) + " ")
                options.append(Option(Text(sanitize_line(path))))
        elif first and token.startswith("/") and self.commands:
            mode = "command"
            for cmd in command_matches(token, self.commands)[:12]:
                values.append(f"/{cmd.name} ")
                label = Text.assemble(
                    (sanitize_line(f"/{cmd.name}"), "bold"),
                    "  ",
                    (sanitize_line(cmd.description), "dim"),
                )
                hint = getattr(cmd.input, "hint", None) if cmd.input is not None else None
                if hint:
                    label.append(sanitize_line(f"  <{hint}>"), style="italic dim")
                options.append(Option(label))
        self._token, self._mode, self._values = token, mode, values
        self.menu.clear_options()
        if options:
            self.menu.add_options(options)
            self.menu.highlighted = 0
        self.menu.set_class(bool(options), "-visible")

    @property
    def completing(self) -> bool:
        """Whether the completion list is open."""
        return self.menu.has_class("-visible") and bool(self._values)

    def close_completions(self) -> None:
        """Hide the completion list."""
        self.menu.set_class(False, "-visible")
        self._values = []

    def accept_completion(self, index: int | None = None) -> None:
        """Replace the token under the cursor with the highlighted (or given) completion."""
        if index is None:
            index = self.menu.highlighted or 0
        if not self._values or index >= len(self._values):
            return
        value = self._values[index]
        row, col = self.cursor_location
        start = (row, col - len(self._token))
        self.replace(value, start, (row, col))
        self.close_completions()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Keep the completion list in step with the text."""
        self.update_completions()

    # -- keys ------------------------------------------------------------------------

    async def _on_key(self, event: Key) -> None:
        key = event.key
        handled = True
        if key in ("ctrl+j", "shift+enter", "alt+enter"):
            start, end = self.selection
            self._replace_via_keyboard("\n", start, end)
        elif key == "enter":
            if self.completing:
                self.accept_completion()
            else:
                self._submit()
        elif key == "tab" and self.completing:
            self.accept_completion()
        elif key == "escape" and self.completing:
            self.close_completions()
        elif key in ("up", "down") and self.completing:
            count = self.menu.option_count
            current = self.menu.highlighted or 0
            step = -1 if key == "up" else 1
            self.menu.highlighted = (current + step) % count
        elif key == "up" and self.cursor_at_first_line:
            entry = self.prompt_history.previous(self.text)
            if entry is not None:
                self.load_text(entry)
                self.move_cursor(self.document.end)
                self.close_completions()
        elif key == "down" and self.cursor_at_last_line:
            entry = self.prompt_history.next()
            if entry is None:
                handled = False
            else:
                self.load_text(entry)
                self.move_cursor(self.document.end)
                self.close_completions()
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            self.post_message(self.SendNext())
            return
        self.prompt_history.add(text)
        self.load_text("")
        self.close_completions()
        self._files = None  # files may have changed by the next mention
        self.post_message(self.Submitted(text))


class Composer(Vertical):
    """The completion list and the prompt input, docked at the bottom."""

    DEFAULT_CSS = """
    Composer { height: auto; border-top: hkey $accent; }
    """

    def __init__(self, cwd: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cwd = os.path.abspath(cwd)
        self.menu = CompletionMenu()
        self.area = PromptArea(
            self.cwd, self.menu, placeholder="Message the agent…  (@ file, / command)"
        )

    def compose(self) -> ComposeResult:
        """The menu above the input."""
        yield self.menu
        yield self.area

    def set_commands(self, commands: Sequence[s.AvailableCommand]) -> None:
        """The slash commands offered by the active session."""
        self.area.commands = list(commands)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click in the list accepts that completion."""
        event.stop()
        self.area.accept_completion(event.option_index)
        self.area.focus()
