"""The hunks of a unified (git) patch, as the changed regions' old and new text.

ACP v2 diff content carries a patch (``DiffPatch``, format ``git_patch`` or
``unified``); v1's carries the old and new text of one file, which every
face shows as a unified diff. A hunk's lines are exactly the old and new
text of the region it changes, so the patch's hunks, read back into those
two texts, are shown as the same diff (with the hunk's own context).
"""

from __future__ import annotations

__all__ = ["MAX_PATCH_CHARS", "patch_files"]

#: Patches longer than this are not read (the faces bound diffs further).
MAX_PATCH_CHARS = 4_000_000


def _path(header: str) -> str | None:
    # "--- a/x.py", "+++ b/x.py", "--- /dev/null"; a tab may follow (a timestamp).
    name = header[4:].split("\t", 1)[0].strip()
    if name == "/dev/null" or not name:
        return None
    if name.startswith(("a/", "b/")):
        name = name[2:]
    return name


def patch_files(text: str) -> list[tuple[str, str | None, str]]:
    """``(path, old text or None for a new file, new text)`` per hunk of a patch.

    Hunks are read by their line counts (``@@ -a,b +c,d @@``), so a removed
    line that reads ``-- x`` is not taken for a file header. A patch that
    holds no hunk (or is over :data:`MAX_PATCH_CHARS`) gives an empty list:
    the caller shows what the patch's metadata says instead.
    """
    if len(text) > MAX_PATCH_CHARS:
        return []
    files: list[tuple[str, str | None, str]] = []
    old_path: str | None = None
    path: str | None = None
    created = False
    old: list[str] = []
    new: list[str] = []
    old_left = new_left = 0
    last = ""  # the sign of the hunk's last line

    def flush() -> None:
        if path is not None and (old or new):
            files.append((path, None if created else "".join(old), "".join(new)))

    for line in text.splitlines(keepends=True):
        if line.startswith("\\") and last:
            # "\ No newline at end of file": the line before it has no newline
            # (on the side or sides it belongs to).
            if last in " -" and old:
                old[-1] = _unterminated(old[-1])
            if last in " +" and new:
                new[-1] = _unterminated(new[-1])
            last = ""
            continue
        last = ""
        if old_left > 0 or new_left > 0:
            if line.startswith(" "):
                old.append(line[1:])
                new.append(line[1:])
                old_left -= 1
                new_left -= 1
                last = " "
            elif line.startswith("-"):
                old.append(line[1:])
                old_left -= 1
                last = "-"
            elif line.startswith("+"):
                new.append(line[1:])
                new_left -= 1
                last = "+"
            else:
                old_left = new_left = 0
            continue
        if line.startswith("--- "):
            flush()
            old, new = [], []
            old_path = _path(line)
            created = old_path is None
            path = old_path
        elif line.startswith("+++ "):
            path = _path(line) or old_path
        elif line.startswith("@@"):
            counts = _counts(line)
            if counts is not None:
                # Each hunk on its own: glued together, hunks far apart
                # would read as neighbouring lines.
                flush()
                old, new = [], []
                old_left, new_left = counts
    flush()
    return files


def _unterminated(line: str) -> str:
    # The patch's own line end after the line, not a character of the file.
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith(("\n", "\r")) else line


def _counts(header: str) -> tuple[int, int] | None:
    # "@@ -a,b +c,d @@": b and d default to 1 when absent.
    parts = header.split(" ")
    if len(parts) < 3 or not parts[1].startswith("-") or not parts[2].startswith("+"):
        return None
    try:
        return _count(parts[1][1:]), _count(parts[2][1:])
    except ValueError:
        return None


def _count(span: str) -> int:
    _, comma, length = span.partition(",")
    return int(length) if comma else 1
