"""The exception tree of acphost, public below the faces: ``acphost.errors``.

Every class here is also importable from ``acphost`` itself.

Everything acphost raises on purpose derives from :class:`AcpError`::

    AcpError
    ├── LocalProtocolError          we (or our caller) broke the protocol
    │   └── CapabilityNotSupported  ...by using something the agent did not advertise
    ├── RemoteProtocolError         the agent sent something malformed
    │   └── NotAnAcpAgent           ...or nothing but output that is not JSON-RPC
    ├── RequestError                a JSON-RPC error response (``code``, ``message``, ``data``)
    │   ├── ParseError              -32700
    │   ├── InvalidRequest          -32600
    │   ├── MethodNotFound          -32601
    │   ├── InvalidParams           -32602
    │   ├── InternalError           -32603
    │   ├── RequestCancelled        -32800
    │   ├── AuthRequired            -32000 (carries the agent's auth methods)
    │   └── ResourceNotFound        -32002
    ├── AgentExited                 the agent process ended (exit code, stderr tail)
    ├── AgentStartError             the agent could not be launched at all
    ├── AcpTimeout                  a bounded wait ran out (also a ``TimeoutError``)
    ├── UsageError                  the library was misused (also a ``RuntimeError``)
    └── OutputFileError             an output file is unsafe to write (also an ``OSError``)

``RequestError`` travels both ways: the agent's error responses are raised as the
subclass for their code, and a host handler raises one to answer the agent with
that error. A handler that raises anything else answers -32603 with a generic
message: exception text never goes to the agent (it may hold paths or secrets).
"""

from __future__ import annotations

# typing costs ~8 ms at import; annotations are strings here, so only mypy needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, ClassVar

__all__ = [
    "AcpError",
    "AcpTimeout",
    "AgentExited",
    "AgentStartError",
    "AuthRequired",
    "CapabilityNotSupported",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "LocalProtocolError",
    "MethodNotFound",
    "NotAnAcpAgent",
    "OutputFileError",
    "ParseError",
    "RemoteProtocolError",
    "RequestCancelled",
    "RequestError",
    "ResourceNotFound",
    "UsageError",
]


class AcpError(Exception):
    """Base class of every error acphost raises on purpose."""


class LocalProtocolError(AcpError):
    """We, or the code calling us, were about to break the protocol.

    Nothing was sent: fix the call as the message says.
    """


class CapabilityNotSupported(LocalProtocolError):
    """The call needs a capability the agent did not advertise in ``initialize``.

    Args:
        capability: the dotted capability name, e.g. ``sessionCapabilities.list``.
        message: what was attempted, for the error text.

    """

    def __init__(self, capability: str, message: str | None = None) -> None:
        self.capability = capability
        super().__init__(
            message
            or f"the agent does not advertise {capability!r}; check "
            "client.agent_capabilities before calling"
        )


class RemoteProtocolError(AcpError):
    """The agent sent a frame that breaks JSON-RPC or the ACP schema."""


class NotAnAcpAgent(RemoteProtocolError):
    """The program wrote output that is not JSON-RPC before any ACP message.

    Raised for every pending request (``initialize`` first) as soon as the
    peer has written a few such lines: it is some other program (``yes``, a
    shell script, an agent started without its ACP flag), and the connection
    is closed.

    Args:
        message: what was seen and what to check.
        first_line: the first offending line, truncated and sanitised.

    Attributes:
        first_line: the first offending line, truncated and sanitised (safe
            to show on a terminal).

    """

    def __init__(self, message: str, first_line: str = "") -> None:
        super().__init__(message)
        self.first_line = first_line


class RequestError(AcpError):
    """A JSON-RPC error response, from the agent or for the agent.

    Args:
        code: the JSON-RPC error code.
        message: a short sentence.
        data: optional structured detail.

    Raised by requests the agent answered with an error: the instance is of the
    subclass registered for ``code`` (see :meth:`from_wire`). Raise one in a host
    handler to answer the agent with that error.

    """

    CODE: ClassVar[int] = -32603
    _by_code: ClassVar[dict[int, type[RequestError]]] = {}

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        self.code = code
        self.message = message
        self.data = data
        super().__init__(f"{message} (JSON-RPC error {code})")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        RequestError._by_code[cls.CODE] = cls

    @classmethod
    def from_wire(cls, error: Any) -> RequestError:
        """Build the most specific error for a JSON-RPC ``error`` member.

        Args:
            error: the decoded ``error`` object of a response.

        Returns:
            An instance of the subclass registered for the code, or of
            :class:`RequestError` itself for codes with no class.

        """
        if not isinstance(error, dict):
            return RequestError(-32603, f"malformed error object: {error!r}")
        code = error.get("code")
        message = error.get("message")
        if not isinstance(code, int) or isinstance(code, bool):
            code = -32603
        if not isinstance(message, str):
            message = "error without a message"
        data = error.get("data")
        sub = cls._by_code.get(code)
        if sub is None:
            return RequestError(code, message, data)
        return sub._from_parts(message, data)

    @classmethod
    def _from_parts(cls, message: str, data: Any) -> RequestError:
        err = cls.__new__(cls)
        RequestError.__init__(err, cls.CODE, message, data)
        return err

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON-RPC ``error`` member for this error."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out


class _CodedError(RequestError):
    CODE: ClassVar[int] = -32603

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(self.CODE, message, data)


class ParseError(_CodedError):
    """-32700: the frame was not valid JSON."""

    CODE = -32700


class InvalidRequest(_CodedError):
    """-32600: the frame was JSON but not a valid JSON-RPC request."""

    CODE = -32600


class MethodNotFound(_CodedError):
    """-32601: the method does not exist or is not available."""

    CODE = -32601


class InvalidParams(_CodedError):
    """-32602: the parameters do not match the method's schema."""

    CODE = -32602


class InternalError(_CodedError):
    """-32603: the handler failed; details stay in the local log."""

    CODE = -32603


class RequestCancelled(_CodedError):
    """-32800: the request was cancelled (``$/cancel_request`` or shutdown)."""

    CODE = -32800


class ResourceNotFound(_CodedError):
    """-32002: a resource, such as a file, does not exist."""

    CODE = -32002


class AuthRequired(_CodedError):
    """-32000: the agent needs ``authenticate`` before this operation.

    ``auth_methods`` holds the methods the agent offered in ``initialize``
    (filled in by the client), so a host can pick one, call
    ``client.authenticate(method.id)`` and retry.
    """

    CODE = -32000

    def __init__(self, message: str, data: Any = None, auth_methods: Sequence[Any] = ()) -> None:
        super().__init__(message, data)
        self.auth_methods: tuple[Any, ...] = tuple(auth_methods)

    @classmethod
    def _from_parts(cls, message: str, data: Any) -> RequestError:
        return cls(message, data)


class AgentExited(AcpError):
    """The agent process ended, or closed its stdout.

    Attributes:
        returncode: the exit status (negative: killed by that signal), or
            ``None`` when the process is still running but closed stdout.
        stderr_tail: the last lines the agent wrote to stderr.

    """

    def __init__(self, returncode: int | None, stderr_tail: str = "", message: str = "") -> None:
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        if not message:
            if returncode is None:
                message = "the agent closed its output"
            elif returncode < 0:
                message = f"the agent was killed by signal {-returncode}"
            else:
                message = f"the agent exited with code {returncode}"
        text = message
        if stderr_tail:
            text += "; last stderr lines:\n" + stderr_tail
        super().__init__(text)
        self.message = message


class AgentStartError(AcpError):
    """The agent could not be launched (command not found, not executable...)."""


class AcpTimeout(AcpError, TimeoutError):
    """A bounded wait ran out; the message names the wait and the fix.

    Attributes:
        stderr_tail: the agent's last stderr lines, when known.

    """

    def __init__(self, message: str, stderr_tail: str = "") -> None:
        self.stderr_tail = stderr_tail
        text = message + (("; last stderr lines:\n" + stderr_tail) if stderr_tail else "")
        super().__init__(text)


class UsageError(AcpError, RuntimeError):
    """The library was used in a way it does not support; the message says the fix."""


class OutputFileError(AcpError, OSError):
    """An output file of the host (audit log, trace, saved session) is unsafe to write.

    The path is a symbolic link, a FIFO, a directory, a file with other hard
    links, or cannot be created: choose another path.

    Args:
        path: the path given.
        reason: why it was refused, in words.

    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot write {path}: {reason}")

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.reason}"
