"""``--ask``: permission questions on the controlling terminal."""

from __future__ import annotations

import asyncio

from ..host import PermissionRequest, Verdict

__all__ = ["ask_on_tty"]


def _describe(request: PermissionRequest) -> str:
    parts = [request.title or request.kind or "an operation"]
    if request.command:
        parts.append(f"command: {request.command}")
    parts.extend(f"path: {p}" for p in request.paths)
    return "\n  ".join(parts)


async def ask_on_tty(request: PermissionRequest) -> Verdict:
    """Ask y/N (or a = always) on the controlling terminal; anything else rejects."""

    def ask() -> str:
        # Two handles: a tty opened "r+" in text mode is not seekable and fails.
        with (
            open("/dev/tty", "w", encoding="utf-8") as out,
            open("/dev/tty", encoding="utf-8") as inp,
        ):
            out.write(
                f"\nacphost: the agent asks to run\n  {_describe(request)}\nallow? [y/N/a=always] "
            )
            out.flush()
            return inp.readline().strip().lower()

    try:
        answer = await asyncio.to_thread(ask)
    except OSError:
        return Verdict.reject("no terminal to ask on")
    if answer in ("a", "always"):
        return Verdict.allow("allowed always by the user", always=True)
    if answer in ("y", "yes"):
        return Verdict.allow("allowed by the user")
    return Verdict.reject("rejected by the user")
