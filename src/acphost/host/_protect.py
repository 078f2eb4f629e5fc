"""Protected paths: where an agent's write would become host code or host configuration.

Inside every workspace root (at any depth, so nested repositories and
submodules count too):

* ``.acphost/**``: project settings, which choose the agent command and the
  permission rules;
* ``.git`` and everything below it (and a ``.git`` file): git runs hooks
  and configured commands (``core.fsmonitor``, aliases, ``core.pager``) on
  the user's next ``git status``, and its metadata has more indirections than
  hooks and config (``commondir``, ``info/``, ``modules/*/``, ``worktrees/``,
  ``objects/info/alternates``, a ``.git`` file naming another directory): git
  metadata is never a legitimate target of an agent's file write;
* any directory git would take for a git directory, whatever its name: git
  looks for a bare repository in the working directory and each parent
  (``setup.c``: ``is_git_directory``), and what makes one is a ``HEAD`` file
  that is a git HEAD (``validate_headref``: ``ref: refs/...`` or a hex
  object id; or a symbolic link to ``refs/...``) beside ``objects/`` and
  ``refs/``, which any write can create. So a directory holding such a
  ``HEAD`` is protected with everything below it (its ``config`` runs
  ``core.fsmonitor`` on ``git status`` there), and so is a write of a file
  named ``HEAD`` whose content is a git HEAD: whichever order the agent
  writes ``config``, ``objects/``, ``refs/`` and ``HEAD`` in, the ``HEAD``
  that completes the repository is refused (:meth:`ProtectedPaths.area`,
  ``content``), whether the host writes it (``fs/write_text_file``) or the
  agent's own edit tool does once allowed (the text its tool call shows,
  or, when it shows none, any: :meth:`ProtectedPaths.written_areas`).
  Files named ``HEAD`` or ``config`` that git would not take for its own
  stay writable.

Wherever git's effective configuration says (:mod:`._gitconfig`, asked of
the real ``git`` for every repository of the workspace: the root's, every
one inside it found by a bounded walk kept current (:mod:`._gitrepos`:
nested repositories, submodules, worktrees, bare ones, and those a command
creates later), and each one on the way down to the path): the hooks
folder ``core.hooksPath`` names (``.githooks``: its ``pre-commit`` runs on
the user's next commit; ``app``'s ``../shared-hooks`` protects the
workspace's ``shared-hooks``), the template folder ``init.templateDir``,
every word of the keys that hold a command or a program
(``core.fsmonitor = ./fsmon.sh``, ``diff.x.textconv = python3 conv.py``,
every alias), and for a word the shell expands or globs, the folder or the
shape of path it may become (``checks/*.sh``: ``checks/``;
``$(git rev-parse --show-toplevel)/tools/clean.sh``: every
``tools/clean.sh``), every configuration file read and every
``include.path`` / ``includeIf`` target (created or not, its own names
protected whatever its condition), and the git directories a ``.git`` file
points to (worktrees, submodules). The answer follows changes made during a
run. A repository owned by another user is read all the same (git's
``safe.directory`` refusal is lifted for these queries, which run nothing).
When git cannot be asked about a repository of the workspace (git missing,
failing on a malformed configuration, an unsupported format or a broken
``.git`` file, too slow), every write in that workspace root is refused,
said once on stderr: where its configuration points (``../shared-hooks``)
is unknown, so no write in the workspace is known safe. Past the walk's
bound, writes in the folders it did not reach are refused the same way
(a repository may hide there), said once.

In a workspace root that holds them (the agent working in the home
directory): the user's files that the next ``git status`` or login shell
runs code from (:func:`startup_files`): git's global configuration
(``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/``: ``core.fsmonitor``,
``core.pager``, aliases), the shell startup files (``~/.bashrc``,
``~/.bash_profile``, ``~/.profile``, ``~/.zshenv``...) and ``~/.ssh/``
(``ProxyCommand``, keys). They are protected from reads as well as writes,
like the host's own files.

Anywhere: the host's own output files (audit log, trace, saved session, the
history store) and folders (acphost's configuration, state and data folders:
settings with other agents' keys, the trust store, the history), registered
by whoever opens them; an entry protects the path and everything below it,
from reads as well as writes (:meth:`ProtectedPaths.output_area`).

A name counts by what a file system may take it for, not by its bytes
(:func:`_fold`, the one normalisation, as git's own ``is_hfs_dotgit`` and
``is_ntfs_dotgit`` guard its index): case variants (``.GIT``, ``.Git``; on
a case-insensitive volume they are ``.git``), names with default-ignorable
characters (``.g\u200cit``: HFS+ ignores them), with trailing dots or
spaces or an NTFS stream suffix (``.git.``, ``.git ``, ``.git::$INDEX_ALLOCATION``:
Windows drops or resolves them) and 8.3 short names (``GIT~1``,
``ACPHOS~1``). The host's output files are compared folded too.

A write there is refused unless a permission rule *names* the protected area:
its ``path`` glob spells the area out literally before any wildcard
(:func:`names_area`), so ``/repo/.git/hooks/pre-commit`` or
``/repo/.git/hooks/*`` names ``/repo/.git/hooks`` but ``/repo/**`` does not.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import stat
import unicodedata
from collections.abc import Iterable, Mapping

from .._invisible import INVISIBLE, char_class
from ._gitconfig import git_config_areas
from ._gitrepos import repositories

__all__ = ["ProtectedPaths", "names_area", "startup_files"]

_log = logging.getLogger("acphost.host.protect")
# The repositories already reported as unreadable: one line each per process.
_reported: set[str] = set()


def _unreadable(root: str, repo: str, problem: str) -> None:
    if repo not in _reported:
        _reported.add(repo)
        _log.warning(
            "%s: %s; writes in %s are refused until git can read this repository's "
            "configuration (fix it, or allow them with a rule naming the folder)",
            repo,
            problem,
            root,
        )


_GLOB = "*?["


def _and_above(path: str) -> list[str]:
    """``path`` and every folder above it."""
    out = [path]
    while os.path.dirname(out[-1]) != out[-1]:
        out.append(os.path.dirname(out[-1]))
    return out


def _within(path: str, area: str) -> bool:
    return path == area or path.startswith(area.rstrip("/") + "/")


# Unicode's Default_Ignorable_Code_Point and format characters (the one table,
# acphost._invisible): characters a file system or a renderer may drop from a name.
_IGNORABLE = re.compile(f"[{char_class(INVISIBLE)}]")

# The protected names once folded: ".git" and ".acphost", and the 8.3 short
# names Windows gives them (the first six characters of the name without its
# dot, "~" and a number).
_PROTECTED_NAME = re.compile(r"\.git|\.acphost|git~\d+|acphos~\d+")


# validate_headref (git's setup.c) reads at most this much of HEAD.
_HEAD_BYTES = 256
# A symbolic ref ("ref:", blanks, "refs/") or a detached HEAD (a SHA-1 or
# SHA-256 object id in hex). Case and leading blanks are forgiven: wider
# than git, never narrower.
_GIT_HEAD = re.compile(rb"\s*(?:ref:\s*refs/|[0-9a-f]{40})", re.IGNORECASE)
# What an unknown content written to a file named HEAD is taken for.
_SOME_HEAD = "ref: refs/"
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC


def _is_git_head(data: bytes) -> bool:
    """Tell whether git would accept ``data`` as the content of a ``HEAD`` file."""
    return _GIT_HEAD.match(data[:_HEAD_BYTES]) is not None


def _has_git_head(directory: str) -> bool:
    """Tell whether ``directory`` holds a ``HEAD`` git accepts (it is, or becomes, a git dir).

    Never blocks: a FIFO named ``HEAD`` is not opened for reading.
    """
    head = os.path.join(directory, "HEAD")
    try:
        st = os.lstat(head)
        if stat.S_ISLNK(st.st_mode):
            return os.readlink(head).startswith("refs/")
        if not stat.S_ISREG(st.st_mode):
            return False
        fd = os.open(head, _READ_FLAGS)
    except OSError:
        return False
    try:
        return _is_git_head(os.read(fd, _HEAD_BYTES))
    except OSError:
        return False
    finally:
        os.close(fd)


def _in_repository(directory: str) -> bool:
    """Tell whether ``directory`` or a folder above it holds a ``.git`` or is a bare repository."""
    while True:
        if os.path.lexists(os.path.join(directory, ".git")) or _has_git_head(directory):
            return True
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent


def _fold(name: str) -> str:
    """A path component as a permissive file system may read it (see the module docstring).

    Ignorable characters go, compatibility forms are unified (NFKC), an NTFS
    stream suffix (from the first ``:``) and trailing dots and spaces are
    cut, and case is folded.
    """
    name = _IGNORABLE.sub("", name)
    name = unicodedata.normalize("NFKC", name)
    name = name.split(":", 1)[0].rstrip(" .")
    return name.casefold()


def _fold_path(path: str) -> str:
    return "/".join(_fold(part) for part in path.split("/"))


# The files in the home directory that a shell reads at startup: bash's
# (login: .bash_profile, .bash_login, .profile; interactive: .bashrc; at
# logout: .bash_logout), sh's .profile, zsh's (.zshenv for every zsh, even
# ``zsh -c``), and ssh's folder (``ProxyCommand`` runs on ``git fetch``).
_HOME_STARTUP = (".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
                 ".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout", ".ssh",
                 ".gitconfig")  # fmt: skip
_ZSH_STARTUP = (".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout")


def startup_files(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The user's files that git and shells run code from, for this environment.

    git's global configuration (``$GIT_CONFIG_GLOBAL``, ``~/.gitconfig``,
    ``$XDG_CONFIG_HOME/git/`` or ``~/.config/git/``; git's ``config.c``
    reads each), the shell startup files in the home directory (and in
    ``$ZDOTDIR``), and ``~/.ssh/``.

    Args:
        environ: the environment the host's commands run with (``os.environ``
            by default): ``HOME``, ``XDG_CONFIG_HOME``, ``ZDOTDIR``,
            ``GIT_CONFIG_GLOBAL``.

    Returns:
        Absolute paths (files, or folders protecting everything below them).

    """
    env = os.environ if environ is None else environ
    home = env.get("HOME") or os.path.expanduser("~")
    if not os.path.isabs(home):
        return ()
    found = [os.path.join(home, name) for name in _HOME_STARTUP]
    xdg = env.get("XDG_CONFIG_HOME") or ""
    found.append(os.path.join(xdg if os.path.isabs(xdg) else os.path.join(home, ".config"), "git"))
    found.append(os.path.join(home, ".config", "git"))
    zdotdir = env.get("ZDOTDIR") or ""
    if os.path.isabs(zdotdir):
        found += [os.path.join(zdotdir, name) for name in _ZSH_STARTUP]
    git_global = env.get("GIT_CONFIG_GLOBAL") or ""
    if os.path.isabs(git_global):
        found.append(git_global)
    return tuple(dict.fromkeys(os.path.normpath(p) for p in found))


class ProtectedPaths:
    """Tells which paths are protected, and the protected area each lies in.

    Args:
        roots: the canonical workspace roots.
        outputs: the host's output files (made absolute and canonical here).
        startup: the user's files that git and shells run code from
            (:func:`startup_files`): protected like ``outputs`` when they lie
            inside a workspace root (outside one, the jail refuses them).

    """

    __slots__ = ("_folded_outputs", "_outputs", "_roots")

    def __init__(
        self, roots: Iterable[str], outputs: Iterable[str] = (), startup: Iterable[str] = ()
    ) -> None:
        self._roots = tuple(os.path.normpath(r) for r in roots)
        canonical = [os.path.realpath(os.path.abspath(p)) for p in startup]
        inside = [p for p in canonical if any(_within(p, r) for r in self._roots)]
        self._outputs = tuple(os.path.realpath(os.path.abspath(o)) for o in outputs)
        self._outputs += tuple(dict.fromkeys(inside))
        self._folded_outputs = tuple(_fold_path(o) for o in self._outputs)

    def area(self, path: str, content: str | None = None) -> str | None:
        """Return the protected area ``path`` lies in, or ``None``.

        Args:
            path: a canonical absolute path (resolved the way the jail resolves).
            content: the text about to be written there, when known: a file
                named ``HEAD`` whose content is a git HEAD makes its
                directory a git directory, so its directory is the area.

        Returns:
            The area: the output file, the workspace directory prefix up to
            and including ``.acphost`` or ``.git``, or a directory git would
            take for a git directory (see the module docstring).

        """
        output = self.output_area(path)
        if output is not None:
            return output
        for root in self._roots:
            if not _within(path, root) or path == root:
                continue
            parts = path[len(root) :].strip("/").split("/")
            for index, part in enumerate(parts):
                if _PROTECTED_NAME.fullmatch(_fold(part)):
                    return os.path.join(root, *parts[: index + 1])
            if (
                content is not None
                and _fold(parts[-1]) == "head"
                and _is_git_head(content[:_HEAD_BYTES].encode("utf-8", "replace"))
            ):
                return os.path.dirname(path)
            # The outermost git directory on the way down, the root included.
            for index in range(len(parts)):
                directory = os.path.join(root, *parts[:index])
                if _has_git_head(directory):
                    return directory
            configured = self._configured_area(root, parts, path)
            if configured is not None:
                return configured
        return None

    def _configured_area(self, root: str, parts: list[str], path: str) -> str | None:
        """The area git's configuration makes of ``path``, asked of every repository that can.

        Those are the root's repository and every one inside the root
        (:func:`._gitrepos.repositories`: nested ones, submodules, worktrees,
        bare ones), and each one on the way down to ``path`` (past the
        walk's bound): any of their configurations may move the hooks or
        name a script anywhere in the workspace. When git cannot be asked
        about one of them, the whole root is the area (fail closed, said
        once): where that configuration points is unknown.
        """
        folded = _fold_path(path)
        on_the_way = [
            directory
            for directory in (os.path.join(root, *parts[:i]) for i in range(1, len(parts)))
            if os.path.lexists(os.path.join(directory, ".git"))
        ]
        survey = repositories(root, _has_git_head)
        for repo in dict.fromkeys([root, *survey.repositories, *on_the_way]):
            answer = git_config_areas(repo, repository=repo != root or _in_repository(root))
            if answer.problem is not None:
                # Its configuration may name any path of the workspace
                # (core.hooksPath = ../shared-hooks): none is known safe.
                _unreadable(root, repo, answer.problem)
                return root
            for area in answer.paths:
                if any(_within(r, area) for r in self._roots):
                    continue  # the whole workspace cannot be an area (see _gitconfig)
                if _within(path, area) or _within(folded, _fold_path(area)):
                    return area
            for pattern in answer.patterns:
                matched = self._pattern_area(path, folded, pattern)
                if matched is not None:
                    return matched
        # Past the walk's bound (said once, :mod:`._gitrepos`): a repository
        # may hide in a folder not walked, naming any path of it.
        for index in range(1, len(parts) + 1):
            directory = os.path.join(root, *parts[:index])
            if directory in survey.unwalked:
                return directory
        return None

    def _pattern_area(self, path: str, folded: str, pattern: str) -> str | None:
        """The shortest of ``path`` and the folders above it that ``pattern`` matches.

        A pattern matching a workspace root or a folder above one is
        skipped: the whole workspace cannot be an area (see _gitconfig).
        """
        folded_pattern = _fold_path(pattern)

        def matches(candidate: str, folded_candidate: str) -> bool:
            return fnmatch.fnmatchcase(candidate, pattern) or fnmatch.fnmatchcase(
                folded_candidate, folded_pattern
            )

        if any(
            matches(above, _fold_path(above)) for root in self._roots for above in _and_above(root)
        ):
            return None
        parts = path.split("/")
        folded_parts = folded.split("/")
        for end in range(2, len(parts) + 1):
            if matches("/".join(parts[:end]), "/".join(folded_parts[:end])):
                return "/".join(parts[:end])
        return None

    def output_area(self, path: str) -> str | None:
        """Return the host's own file or folder ``path`` lies in, or ``None``.

        These are protected from reads as well as writes: acphost's folders
        hold other agents' settings (API keys in their ``env``), the trust
        store and the history, and its output files what other sessions said.
        The workspace's ``.git`` and ``.acphost`` stay readable.

        Args:
            path: a canonical absolute path.

        Returns:
            The output file or folder, as registered (canonical).

        """
        folded = _fold_path(path)
        for output, folded_output in zip(self._outputs, self._folded_outputs, strict=True):
            if _within(path, output) or _within(folded, folded_output):
                return output
        return None

    def written_areas(self, writes: Iterable[tuple[str, str | None]]) -> tuple[str, ...]:
        """Return the protected areas a tool call's writes reach, each once, in order.

        An agent's own edit tool writes what its tool call claims (a diff's
        ``newText``, a raw input's ``content``), so that text is judged as
        :meth:`area` judges an ``fs/write_text_file``'s. When the claim does
        not say what the whole file becomes (no content, or only an edit's
        ``new_string`` fragment), a file named ``HEAD`` is taken as a git
        ``HEAD``: what the agent writes there is unknown, and a git ``HEAD``
        completes a bare repository.

        Args:
            writes: ``(path, text)`` pairs: a canonical absolute path and the
                whole text the tool would leave there, or ``None`` if unknown.

        Returns:
            The areas (empty when nothing is protected).

        """
        found: list[str] = []
        for path, text in writes:
            unknown_head = text is None and _fold(os.path.basename(path)) == "head"
            area = self.area(path, _SOME_HEAD if unknown_head else text)
            if area is not None and area not in found:
                found.append(area)
        return tuple(found)

    def areas(self, paths: Iterable[str], content: str | None = None) -> tuple[str, ...]:
        """Return the protected areas the paths lie in, each once, in order.

        Args:
            paths: canonical absolute paths.
            content: the text about to be written to each (see :meth:`area`).

        Returns:
            The areas (empty when nothing is protected).

        """
        found: list[str] = []
        for path in paths:
            area = self.area(path, content)
            if area is not None and area not in found:
                found.append(area)
        return tuple(found)


def names_area(glob: str, area: str) -> bool:
    """Tell whether a rule's ``path`` glob names a protected area explicitly.

    The glob's literal part (everything before its first ``*``, ``?`` or
    ``[``) must reach the area: equal it, or go below it. A broad glob whose
    wildcard merely covers the area (``/repo/**``, ``/repo/.git/*``) does not.

    Args:
        glob: the rule's path glob.
        area: an area from :meth:`ProtectedPaths.area`.

    Returns:
        ``True`` when the glob names the area.

    """
    cut = min((i for i, c in enumerate(glob) if c in _GLOB), default=len(glob))
    if cut == len(glob):
        return _within(os.path.normpath(glob), area)
    # Only whole components before the first wildcard count: "/repo/.git/hooks/*"
    # names "/repo/.git/hooks", "/repo/.git/hoo*" and "/repo/.git/*" do not.
    head = glob[: glob.rfind("/", 0, cut) + 1]
    return bool(head) and _within(os.path.normpath(head), area)
