"""Host-side providers: the workspace jail, the permission policy and terminals."""

from ._fs import DEFAULT_MAX_READ_BYTES, FileSystemProvider
from ._jail import Workspace

__all__ = [
    "DEFAULT_MAX_READ_BYTES",
    "FileSystemProvider",
    "Workspace",
]
