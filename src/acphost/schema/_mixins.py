"""Display helpers mixed into generated schema classes (hand-written).

``tools/gen_schema.py`` (table ``MIXINS``) makes the generated session-update and
content-block classes inherit these, to give each a ``.text`` property: a short,
plain-text rendering for logs and line-oriented output. Mixins hold no state
(``__slots__ = ()``) and only read fields the generated class defines.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from acphost.schema._types import (
        AvailableCommand,
        ContentBlock,
        EmbeddedResourceResource,
        PlanEntry,
        SessionConfigOption,
        Unset,
    )

__all__ = [
    "ChunkText",
    "CommandsText",
    "CompactionText",
    "ConfigOptionsText",
    "EmbeddedText",
    "EmptyText",
    "KindText",
    "LinkText",
    "ModeText",
    "NoticeText",
    "PlanText",
    "SessionInfoText",
    "ToolCallText",
    "UsageText",
]


class ChunkText:
    """``.text`` of a message/thought chunk: its text block's text, else ``""``."""

    __slots__ = ()
    if TYPE_CHECKING:
        content: ContentBlock

    @property
    def text(self) -> str:
        """The chunk's text; ``""`` when the block is not text."""
        # Only TextContentBlock has ``type == "text"`` (its fixed discriminator);
        # testing it avoids importing _types here (an import cycle), per call.
        block = self.content
        return block.text if getattr(block, "type", None) == "text" else ""


class ToolCallText:
    """``.text`` of a tool call start/progress: its title, else its status."""

    __slots__ = ()
    if TYPE_CHECKING:
        title: str | None
        status: str | None

    @property
    def text(self) -> str:
        """The title, or the status when no title was sent, or ``""``."""
        return self.title or self.status or ""


class PlanText:
    """``.text`` of a plan: one entry per line."""

    __slots__ = ()
    if TYPE_CHECKING:
        entries: list[PlanEntry]

    @property
    def text(self) -> str:
        """The entries' contents, one per line."""
        return "\n".join(entry.content for entry in self.entries)


class CommandsText:
    """``.text`` of an available-commands update: the command names."""

    __slots__ = ()
    if TYPE_CHECKING:
        available_commands: list[AvailableCommand]

    @property
    def text(self) -> str:
        """The command names, comma-separated."""
        return ", ".join(command.name for command in self.available_commands)


class ModeText:
    """``.text`` of a current-mode update: the mode id."""

    __slots__ = ()
    if TYPE_CHECKING:
        current_mode_id: str

    @property
    def text(self) -> str:
        """The new mode's id."""
        return self.current_mode_id


class ConfigOptionsText:
    """``.text`` of a config-option update: ``name=value`` pairs."""

    __slots__ = ()
    if TYPE_CHECKING:
        config_options: list[SessionConfigOption]

    @property
    def text(self) -> str:
        """Each option as ``name=current value``, comma-separated."""
        parts = []
        for option in self.config_options:
            value = getattr(option, "current_value", None)
            if value is True or value is False:
                value = "on" if value else "off"
            parts.append(f"{getattr(option, 'name', '?')}={value}")
        return ", ".join(parts)


class SessionInfoText:
    """``.text`` of a session-info update: the title."""

    __slots__ = ()
    if TYPE_CHECKING:
        title: str | None

    @property
    def text(self) -> str:
        """The session title, or ``""`` when this update has none."""
        return self.title or ""


class UsageText:
    """``.text`` of a usage update: ``used/size`` tokens."""

    __slots__ = ()
    if TYPE_CHECKING:
        used: int
        size: int

    @property
    def text(self) -> str:
        """Context tokens used out of the window size, as ``used/size``."""
        return f"{self.used}/{self.size}"


class NoticeText:
    """``.text`` of a notice: its title, and its description when it has one."""

    __slots__ = ()
    if TYPE_CHECKING:
        title: str
        description: str | None

    @property
    def text(self) -> str:
        """``title``, or ``title: description``."""
        return f"{self.title}: {self.description}" if self.description else self.title


class CompactionText:
    """``.text`` of a compaction update: its status, and its error when it has one."""

    __slots__ = ()
    if TYPE_CHECKING:
        status: str
        error: str | Unset | None

    @property
    def text(self) -> str:
        """``status``, or ``status: error`` (``error`` may be UNSET: not sent)."""
        error = self.error
        return f"{self.status}: {error}" if isinstance(error, str) and error else self.status


class KindText:
    """``.text`` of an unknown variant: its discriminator value."""

    __slots__ = ()
    if TYPE_CHECKING:
        kind: str

    @property
    def text(self) -> str:
        """The unknown variant's kind."""
        return self.kind


class LinkText:
    """``.text`` of a resource link: its URI."""

    __slots__ = ()
    if TYPE_CHECKING:
        uri: str

    @property
    def text(self) -> str:
        """The linked resource's URI."""
        return self.uri


class EmbeddedText:
    """``.text`` of an embedded resource: its URI."""

    __slots__ = ()
    if TYPE_CHECKING:
        resource: EmbeddedResourceResource

    @property
    def text(self) -> str:
        """The embedded resource's URI."""
        return self.resource.uri


class EmptyText:
    """``.text`` of a block with no text (image, audio, unknown): ``""``."""

    __slots__ = ()

    @property
    def text(self) -> str:
        """Always ``""``."""
        return ""
