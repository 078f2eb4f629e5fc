"""The live session tree: the child sessions an agent runs for its subagents.

An agent announces a child with ``subagent_update`` on the parent session;
"child events are delivered automatically on the same connection", on the
child's own session id (schema ``SubagentUpdate``). :class:`~._state.SessionState`
keeps what the parent said of each child (:class:`~._subagent_state.SubagentState`);
this module makes each announced child a :class:`Subagent`, which the peer
routes the child's updates to, and keeps the tree of one root
:class:`~acphost.Session`: which children still run, waiting for them, and
cancelling them.

A child is a restricted session: the host reads it and, where the parent
allows (``capabilities.cancel``), cancels its work; it never prompts it.
Whatever the agent says of a child's ``cwd``, requests on the child's id pass
the *root* session's workspace jail: a child inherits the host's decision, not
the agent's claim.

Children may go on after the parent's ``session/prompt`` answered (codex-acp's
do): a turn's result names those still running
(:attr:`TurnResult.subagents_running <acphost.TurnResult.subagents_running>`)
and :meth:`SubagentTree.wait` lets the host await them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from .. import schema as s
from ..errors import AcpError, AcpTimeout, AgentExited, CapabilityNotSupported

if TYPE_CHECKING:
    from ._peer import Peer
    from ._state import SessionState, SubagentState

__all__ = ["MAX_DEPTH", "MAX_TREE", "Subagent", "SubagentTree"]

logger = logging.getLogger("acphost.session")

#: How deep children may nest (a child's child, ...); deeper ones are ignored.
MAX_DEPTH = 8

#: The most subagents one session's tree keeps, at every depth together (an
#: agent could announce children of children without end); later ones are
#: ignored, with one warning.
MAX_TREE = 256


class Subagent:
    """A child session the agent runs for a subagent (read it; cancel it where allowed).

    Get them from :attr:`Session.subagents <acphost.Session.subagents>` (the
    direct children) and :attr:`subagents` (a child's own children).

    Attributes:
        id: the child's session id.
        parent: the session or subagent that announced it.
        depth: 1 for a child of a session, 2 for its child, and so on.

    """

    __slots__ = ("_child", "_children", "_tree", "depth", "id", "parent")

    def __init__(self, tree: SubagentTree, parent: Any, child: SubagentState, depth: int) -> None:
        self._tree = tree
        self._child = child
        self._children: dict[str, Subagent] = {}
        self.id = child.session_id
        self.parent = parent
        self.depth = depth

    def __repr__(self) -> str:
        return f"<Subagent {self.id} {self.label!r} {self.activity}>"

    # -- what the parent said of it --------------------------------------------------

    @property
    def root(self) -> Any:
        """The :class:`~acphost.Session` at the root of the tree."""
        return self._tree.root

    @property
    def state(self) -> SessionState:
        """The child's own session state (messages, tool calls, plan, usage)."""
        return self._child.state

    @property
    def info(self) -> SubagentState:
        """Everything the parent said of the child (its ``subagent_update`` upserts)."""
        return self._child

    @property
    def title(self) -> str | None:
        """The parent's display title for the child."""
        return self._child.title

    @property
    def description(self) -> str | None:
        """The parent's description of the child's role."""
        return self._child.description

    @property
    def label(self) -> str:
        """How a face names the child: its title, else its description, else its id."""
        return self._child.label

    @property
    def activity(self) -> str | None:
        """``running``, ``idle``, ``requires_action``, ``unknown`` (or newer); None: not said."""
        return self._child.activity

    @property
    def stop_reason(self) -> str | None:
        """Why its last foreground work ended (on ``idle``)."""
        return self._child.stop_reason

    @property
    def running(self) -> bool:
        """True while it works in the foreground (running or waiting on the user)."""
        return self._child.running

    @property
    def can_cancel(self) -> bool:
        """The parent allows cancelling it (``capabilities.cancel``)."""
        return self._child.can_cancel

    @property
    def subagents(self) -> tuple[Subagent, ...]:
        """Its own children, in the order they were announced."""
        return tuple(self._children.values())

    # -- what the host bridge reads (a SessionView) ------------------------------------

    @property
    def cwd(self) -> str:
        """The root session's cwd: the jail of the child's requests (never the agent's claim)."""
        return str(self._tree.root.cwd)

    @property
    def additional_directories(self) -> tuple[str, ...]:
        """The root session's further roots (as :attr:`cwd`)."""
        return tuple(self._tree.root.additional_directories)

    # -- the peer's side (an UpdateSink) -------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once the root session closed."""
        return bool(self._tree.root.closed)

    def _receive_update(self, update: s.SessionUpdate) -> None:
        state = self._child.state
        if type(update) not in state.inert:
            state.apply(update)

    # -- actions --------------------------------------------------------------------------

    async def cancel(self) -> None:
        """Cancel the child's current work (``session/cancel`` on its id).

        Its pending permission requests are answered ``cancelled``, as for a
        session's turn. Returns at once; :meth:`Session.wait_subagents
        <acphost.Session.wait_subagents>` waits for it to go idle.

        Raises:
            CapabilityNotSupported: the parent does not allow cancelling it
                (schema ``SubagentSessionCapabilities.cancel``: "Omitted or
                ``null`` means unsupported").

        """
        if not self.can_cancel:
            raise CapabilityNotSupported(
                "subagent capabilities.cancel",
                f"the agent does not allow cancelling the subagent {self.label!r}",
            )
        self._tree.send_cancel(self)


class SubagentTree:
    """The children of one root session, at every depth (internal; see :class:`Subagent`).

    Args:
        peer: the connection, which routes each child's updates to its :class:`Subagent`.
        root: the root session (it supplies the workspace and ``closed``).

    """

    def __init__(self, peer: Peer, root: Any) -> None:
        self._peer = peer
        self.root = root
        self.children: dict[str, Subagent] = {}  # the root's direct children
        self.everyone: dict[str, Subagent] = {}  # every descendant (each one routed)
        self._waiters: list[asyncio.Future[None]] = []
        self._ended: BaseException | None = None
        self._released = False
        self._refused: set[str] = set()

    def watch(self, state: SessionState, owner: Subagent | None) -> None:
        """Follow ``state``'s ``subagent_update`` rules: its children join the tree."""
        state.admit = lambda sid: self._admits(sid, owner)
        state.on_subagent = lambda child, new: self._changed(child, new, owner)

    def _admits(self, sid: str, owner: Subagent | None) -> bool:
        # Asked before the state keeps a new child: one that is refused here
        # is neither kept, shown, routed nor waited for.
        if self._released:
            return False
        if sid in self.everyone:
            return self._refuse("its id names another subagent of the session", sid)
        if self._peer.routes(sid):
            # An agent must not take over another session's updates (or its
            # requests' workspace) by naming it as a child.
            return self._refuse("its id names another session", sid)
        if _depth(owner) > MAX_DEPTH:
            return self._refuse(f"subagents nest at most {MAX_DEPTH} deep", sid)
        if len(self.everyone) >= MAX_TREE:
            return self._refuse(f"a session keeps at most {MAX_TREE} subagents", sid)
        return True

    def _refuse(self, why: str, sid: str) -> bool:
        # Once per reason and tree: an agent repeating it must not flood the log.
        if why not in self._refused:
            self._refused.add(why)
            logger.warning("ignored the subagent %r (and any other such): %s", sid[:80], why)
        return False

    def _changed(self, child: SubagentState, new: bool, owner: Subagent | None) -> None:
        # Runs inline in the reader, while the parent's update is applied:
        # the child is routed before any of its own updates is read.
        if new:
            self._adopt(child, owner)
        self._wake()

    def _adopt(self, child: SubagentState, owner: Subagent | None) -> None:
        sid = child.session_id
        agent = Subagent(self, self.root if owner is None else owner, child, _depth(owner))
        if not self._peer.register_child(sid, agent):  # admitted just now: cannot happen
            return
        self.everyone[sid] = agent
        (self.children if owner is None else owner._children)[sid] = agent
        self.watch(child.state, agent)

    def begin_turn(self) -> None:
        """The host starts new work (a prompt): the children's requests are live again.

        Only the host re-arms them: an agent saying a cancelled child runs
        again does not (its permission requests stay answered ``cancelled``).
        """
        host = self._peer.host
        for sid in self.everyone:
            host.begin_turn(sid)

    # -- running children ------------------------------------------------------------------

    def running(self) -> list[Subagent]:
        """The descendants working in the foreground, in announce order (none once released)."""
        if self._released:
            return []
        return [agent for agent in self.everyone.values() if agent.running]

    async def wait(self, timeout: float | None) -> None:
        """Return once no descendant runs.

        Raises:
            AcpTimeout: some still ran after ``timeout`` seconds.
            AgentExited: the agent went away meanwhile.

        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self.running():
            if self._ended is not None:
                raise self._ended
            if self._released:  # the session closed: nothing more will come
                return
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                names = ", ".join(agent.label for agent in self.running())
                raise AcpTimeout(
                    f"subagents still running after {timeout:g} s: {names}",
                    self._peer.stderr_tail(),
                )
            waiter = loop.create_future()
            self._waiters.append(waiter)
            closed = self._peer.connection.closed
            try:
                await asyncio.wait({waiter, closed}, timeout=left, return_when="FIRST_COMPLETED")
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            if closed.done() and self.running():
                error = self._peer.connection.closed_error
                raise (
                    error
                    if isinstance(error, AcpError)
                    else AgentExited(
                        None, self._peer.stderr_tail(), "the agent went away while subagents ran"
                    )
                )

    def _wake(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    def send_cancel(self, agent: Subagent) -> None:
        """Send ``session/cancel`` for one child; its permission requests answer ``cancelled``."""
        self._peer.notify(s.SESSION_CANCEL, s.CancelNotification(session_id=agent.id).to_wire())
        self._peer.host.cancel_session(agent.id)
        agent.state.cancel_pending_tool_calls()

    def cancel_running(self) -> list[Subagent]:
        """Cancel what runs below the root; return the children sent ``session/cancel``.

        Every running descendant's pending and new permission requests are
        answered ``cancelled`` (an answer to the agent's own request needs no
        capability); ``session/cancel`` goes only to those the agent allows
        cancelling (schema ``SubagentSessionCapabilities.cancel``).
        """
        host = self._peer.host
        cancelled = []
        for agent in self.running():
            if agent.can_cancel:
                self.send_cancel(agent)
                cancelled.append(agent)
            else:
                host.cancel_session(agent.id)
        return cancelled

    def release(self, error: BaseException | None = None) -> list[str]:
        """The root closed: stop routing the children; waiters end (with ``error``, if any).

        Returns:
            The ids of every descendant: the host frees what they hold
            (their workspace, terminals, grants and pending questions).

        """
        ids = list(self.everyone)
        for sid in ids:
            self._peer.unregister_child(sid)
        self._released = True
        if error is not None:
            self._ended = error
        self._wake()
        return ids


def _depth(owner: Subagent | None) -> int:
    """The depth of a child of ``owner`` (None: the root session)."""
    return 1 if owner is None else owner.depth + 1
