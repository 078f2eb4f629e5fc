"""The one lazy loader behind the packages' re-exports (PEP 562).

``import acphost`` and the CLI's start-up must not pay for what they do not
use, so each package's ``__init__`` names its exports in a table (name ->
module) and lets this module import them on first access. The loaded value
is then stored in the package's namespace, so each name is looked up once.
"""

from __future__ import annotations

import sys

# Not `from typing import TYPE_CHECKING`: typing pulls in re and enum (~6 ms),
# which `import acphost` and the demo agent's start-up must not pay.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, table: Mapping[str, str], exported: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Make a package's module-level ``__getattr__`` and ``__dir__``.

    Args:
        package: the package's ``__name__``; it must be imported (its
            ``__init__`` is running).
        table: each lazily loaded name -> the module that defines it,
            relative to ``package`` (``".client._client"``).
        exported: the package's ``__all__``, which ``dir()`` lists.

    Returns:
        ``(__getattr__, __dir__)``, to assign at the package's module level.

    """
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # `importlib.import_module` would cost every start the import of
        # importlib (~1 ms); a relative name made absolute, then `__import__`
        # and the loaded module, is the same import.
        absolute = _absolute(module, package)
        __import__(absolute)
        value = getattr(sys.modules[absolute], name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(exported)

    return __getattr__, __dir__


def _absolute(module: str, package: str) -> str:
    """``module`` made absolute as ``importlib.import_module(module, package)`` reads it.

    ``.x`` is ``package.x``, ``.`` the package itself, ``..x`` ``x`` beside it.
    """
    name = module.lstrip(".")
    level = len(module) - len(name)
    if not level:
        return module
    base = package.rsplit(".", level - 1)[0]
    return f"{base}.{name}" if name else base
