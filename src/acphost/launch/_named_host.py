"""The host of a named session: one agent, one session, the runs' prompts in a queue.

The host listens on the name's socket (see :mod:`acphost.launch._named`)
before it starts the agent, so the runs that race to start it connect at
once and wait their turn while the agent starts. It opens the agent with
the one assembly (:func:`~acphost.launch.open_run`), continuing the name's
session when an earlier host left its id (``session/resume`` where the
agent offers it, else ``session/load``), and queues each run's prompt in that
session (:meth:`Session.enqueue <acphost.Session.enqueue>`): first come,
first served; a run that reconnects after a host died keeps its ticket, so
the waiting prompts keep their order.

The wire, one JSON object a line. A run sends one request, with ``v``
(:data:`~acphost._namedwire.WIRE_VERSION`), ``token`` (the host's secret,
read from the name's private folder: a request without it is refused, and
told nothing more) and ``op``:

- ``prompt``: ``prompt`` (content blocks, wire form), ``text`` (the prompt as
  typed, for ``status``), ``ticket`` (an earlier host's, or null), ``output``
  and ``tty`` (the run's output mode and terminal: the face's view renders
  the turn for them), ``queue`` (false: refuse when busy), ``options`` (the
  session's options as this run would have them), ``keep_alive`` (seconds,
  or null), ``limits`` (the turn's budget flags), ``subagent_timeout``. Then,
  at most, ``{"op": "cancel"}``; closing the connection cancels as well.
- ``status``; ``cancel_running`` (``acphost cancel``).

The host answers ``queued`` (``ticket``, ``ahead``), ``start``, then what the
run's view writes: ``o`` and ``e`` (``d``: text for the run's stdout and
stderr), then ``exit`` (``code``); or ``error`` (``code``, ``text``: the turn
could not begin); or at once ``busy``, ``full``, ``refused`` (``message``: a
usage problem), ``denied`` (``message``: no token, another version), ``gone``
(the host is stopping: connect again), ``status``, ``cancelled``.

The host stops when the agent has been idle for the keep-alive (the last
run's ``--keep-alive``), or when the agent went away. It stops listening
first, so a run arriving meanwhile starts the next host, which waits for the
lock this one holds until it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import logging
import os
import secrets
import signal
import stat
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._named import WIRE_LIMIT, WIRE_VERSION, NamedPlace, read_json, write_json
from ._named import receive_message as receive
from ._named_runs import (
    MAX_WAITING,
    NO_TOKEN,
    ON_DROP,
    OTHER_VERSION,
    HostHooks,
    Prompt,
    RunView,
    denied,
    differs_message,
    is_count,
    keep_alive_seconds,
    options_digest,
    prompt_blocks,
    refused,
    send,
)

if TYPE_CHECKING:
    from ..client import Session, Turn
    from ._open import Run

__all__ = ["NamedHost"]

logger = logging.getLogger("acphost.launch.named")

#: Seconds a new session's agent stays warm after its last turn.
DEFAULT_KEEP_ALIVE = 300.0
#: After a turn's subagents stopped: the quiet that ends the turn, and the longest wait.
_SETTLE_QUIET = 0.05
_SETTLE_MOST = 1.0
#: The session tree's update kinds (subagents and the messages between sessions).
_TREE_KINDS = frozenset(("subagent_update", "session_message", "session_message_chunk"))
#: Seconds a host taking over waits for the runs of the dead host's queue to reconnect.
_TAKEOVER_GRACE = 2.0
#: Seconds a connection has to send its request.
_REQUEST_TIMEOUT = 10.0
#: Seconds the agent gets to end a turn after session/cancel.
_CANCEL_GRACE = 5.0
#: The reasons that make a turn's run exit as interrupted (130).
INTERRUPTED = ("interrupted", "cancelled by acphost cancel")


class NamedHost:
    """Serve one named session's runs from its socket, with one agent.

    Attributes:
        takeover_grace: seconds a host taking over waits for the runs that
            waited on the dead host to reconnect, before it serves others.

    Args:
        place: the name's place; the caller holds its lock.
        hooks: the face's decisions.
        keep_alive: seconds the agent stays warm after the last turn (None:
            the name's earlier host's, else :data:`DEFAULT_KEEP_ALIVE`).

    """

    takeover_grace: float = _TAKEOVER_GRACE

    def __init__(self, place: NamedPlace, hooks: HostHooks, keep_alive: float | None) -> None:
        self.place = place
        self.hooks = hooks
        if keep_alive is None:  # the session's earlier host's, else the default
            saved = keep_alive_seconds((read_json(place.session_file) or {}).get("keepAlive"))
            # `--keep-alive 0` stopped the earlier host at once: a wish of that
            # run, not the session's; a later run that names none gets the default.
            keep_alive = saved if saved else DEFAULT_KEEP_ALIVE
        bounded = keep_alive_seconds(keep_alive)
        self.keep_alive = DEFAULT_KEEP_ALIVE if bounded is None else bounded
        self.run: Run | None = None
        self.session: Session | None = None
        self._pending: list[Prompt] = []
        self._prompts: dict[int, Prompt] = {}  # by ticket, until their turn ends
        self._by_turn: dict[Turn, Prompt] = {}
        self._starting: Prompt | None = None
        self._current: Prompt | None = None
        # The run each subagent's updates go to: the one whose turn it began in.
        self._children: dict[str, Prompt | None] = {}
        # A host taking over: the tickets the dead one had waiting, and its next.
        queue = read_json(place.queue_file) or {}
        waiting = queue.get("waiting")
        self._expected = {n for n in (waiting if isinstance(waiting, list) else ()) if is_count(n)}
        # The only tickets a run may bring: those the dead host had waiting.
        self._takeover = set(self._expected)
        after = queue.get("next")
        first = after if isinstance(after, int) and is_count(after) else 1
        self._next_ticket = max(first, max(self._expected, default=0) + 1)
        self._closing = False
        self._stopping = False
        self._changed = asyncio.Event()
        self._tree_changed = asyncio.Event()  # any update: a subagent may have stopped
        self._warm_until: float | None = None
        self._note: str | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._token = secrets.token_urlsafe(32)
        self._options_digest = options_digest(hooks.fingerprint)

    # -- the life of the host ------------------------------------------------------

    async def serve(self, ready: Callable[[], None]) -> None:
        """Listen, tell ``ready``, own the agent until it is idle past the keep-alive."""
        path = self.place.socket
        # We hold the lock: whatever is at the path was left by a dead host.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.place.failure_file)  # an earlier host's, no longer true
        # The secret is in place before anyone can connect (0600, in the
        # name's private folder, which the sandbox keeps its agents from reading).
        write_json(self.place.token_file, {"token": self._token})
        server = await asyncio.start_unix_server(self._connected, path=path, limit=WIRE_LIMIT)
        os.chmod(path, 0o600)
        st = os.lstat(path)
        ident = (st.st_dev, st.st_ino)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)
        ready()
        try:
            await self._own_agent(server)
        finally:
            self._closing = True
            server.close()
            self._unlink_socket(ident)
            for prompt in list(self._prompts.values()) + self._pending:
                if prompt.turn is None or not prompt.turn.done:
                    if prompt.started:
                        prompt.view.close()
                    send(prompt.writer, {"t": "gone"})
                prompt.writer.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                loop.remove_signal_handler(sig)

    def stop(self) -> None:
        """Stop now (SIGTERM): the running turn is cancelled as the agent closes.

        Its run is told the host stopped; the runs waiting start the next host.
        """
        self._stopping = True
        self._changed.set()
        if self.session is None and self.run is not None:
            self.run.kill()  # still starting: no need to wait for the agent's set-up

    def _unlink_socket(self, ident: tuple[int, int]) -> None:
        """Remove our socket, only if the path still names the one we bound."""
        try:
            st = os.lstat(self.place.socket)
            if stat.S_ISSOCK(st.st_mode) and (st.st_dev, st.st_ino) == ident:
                os.unlink(self.place.socket)
        except OSError as exc:
            logger.debug("named: socket not removed: %s", exc)

    def _saved_session(self) -> str | None:
        data = read_json(self.place.session_file)
        sid = data.get("sessionId") if data is not None else None
        return sid if isinstance(sid, str) and 0 < len(sid) <= 1024 else None

    async def _own_agent(self, server: asyncio.AbstractServer) -> None:
        from ._open import open_run  # noqa: PLC0415

        saved = self._saved_session()
        while True:
            try:
                options = self.hooks.options(saved)
            except Exception as exc:  # the run's options cannot be built: said once, as a start
                self._record_failure(self._fail_waiting(exc), exc)
                return
            options.taps.append(self._tap)
            run = self.run = open_run(options)
            try:
                async with run:
                    await self._serve_session(run, server)
                return
            except Exception as exc:
                if run.failed_in == "session" and saved is not None:
                    logger.warning("named: session %s could not be reopened: %s", saved, exc)
                    self._note = (
                        "the session's earlier conversation could not be reopened "
                        "(the agent refused it): this is a new session"
                    )
                    saved = None
                    continue
                report = self._fail_waiting(exc)
                if run.failed_in is None or self._stopping:
                    # Stopped (SIGTERM, making way): the agent was killed on purpose.
                    logger.warning("named: the host stops: %s", exc)
                    return
                self._record_failure(report, exc)
                return

    def _record_failure(self, report: dict[str, Any], exc: BaseException) -> None:
        """The agent did not start: keep why, for the runs whose connection closes first.

        They say it once and start no other host.
        """
        logger.warning("named: the agent did not start: %s", report.get("text") or exc)
        try:
            write_json(self.place.failure_file, report)
        except OSError as err:
            logger.warning("named: the failure was not saved: %s", err)

    def _fail_waiting(self, exc: BaseException) -> dict[str, Any]:
        """The agent could not be opened (or failed): tell every waiting run why; the report."""
        report = self.hooks.error_report(exc)
        for prompt in list(self._prompts.values()):
            if prompt.turn is None:
                send(prompt.writer, {"t": "error", **report})
                self._prompts.pop(prompt.ticket, None)
                prompt.done.set()
        self._pending.clear()
        return report

    async def _serve_session(self, run: Run, server: asyncio.AbstractServer) -> None:
        self.session = run.session
        self._save()
        unsubscribe = run.client.events.subscribe(self._observe)
        try:
            await self._await_expected()
            pending, self._pending = sorted(self._pending, key=lambda p: p.ticket), []
            for prompt in pending:
                self._enqueue(prompt)
            await self._until_idle(run)
        finally:
            # Stop listening before the agent closes: a run arriving now
            # starts the next host (it waits for our lock).
            self._closing = True
            server.close()
            unsubscribe()

    async def _await_expected(self) -> None:
        """Taking over: give the runs that waited on the dead host a moment to reconnect.

        Their prompts then start in their first order, not in the order the
        runs noticed the death.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.takeover_grace
        while self._expected - set(self._prompts) and loop.time() < deadline:
            if self._stopping:
                break
            self._changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), deadline - loop.time())
        self._expected.clear()

    def _dropped(self, ticket: int) -> None:
        """A run dropped for not reading: its turn goes on; its ticket is kept for it.

        The run then says it was dropped, not that its host died.
        """
        prompt = self._prompts.get(ticket)
        if prompt is not None:
            prompt.dropped = True
        data = read_json(self.place.dropped_file) or {}
        tickets = [t for t in data.get("tickets") or [] if is_count(t)][-15:]
        try:
            write_json(self.place.dropped_file, {"tickets": [*tickets, ticket]})
        except OSError as exc:
            logger.warning("named: the dropped run's ticket was not saved: %s", exc)

    def _save_queue(self) -> None:
        """Keep the tickets of the prompts not yet started, for a host taking over."""
        waiting = sorted(p.ticket for p in self._prompts.values() if not p.started)
        try:
            write_json(self.place.queue_file, {"waiting": waiting, "next": self._next_ticket})
        except OSError as exc:
            logger.warning("named: the queue's tickets were not saved: %s", exc)

    def _save(self) -> None:
        """Keep the session id and the keep-alive for the name's next host."""
        if self.session is None:
            return
        try:
            write_json(
                self.place.session_file,
                {"sessionId": self.session.id, "keepAlive": self.keep_alive},
            )
        except OSError as exc:  # the next host starts a new session: say so, go on
            logger.warning("named: the session id was not saved: %s", exc)

    def _busy(self) -> bool:
        session = self.session
        return session is not None and (session.turn is not None or bool(session.queued))

    async def _until_idle(self, run: Run) -> None:
        """Return when the agent is gone, or idle for the keep-alive."""
        gone = asyncio.ensure_future(run.client.wait_closed())
        try:
            while not gone.done() and not self._stopping:
                self._changed.clear()
                changed = asyncio.ensure_future(self._changed.wait())
                # A run still served (waiting, running, or waiting for its
                # turn's subagents) keeps the agent.
                busy = self._busy() or bool(self._prompts)
                self._warm_until = None if busy else time.monotonic() + self.keep_alive
                await asyncio.wait(
                    {changed, gone},
                    timeout=None if busy else self.keep_alive,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                changed.cancel()
                if self._stopping:
                    return
                if not busy and not self._changed.is_set() and not self._busy():
                    return  # idle past the keep-alive
        finally:
            gone.cancel()

    # -- the runs ----------------------------------------------------------------------

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            message = await asyncio.wait_for(receive(reader), _REQUEST_TIMEOUT)
        except asyncio.TimeoutError:
            message = None
        try:
            if message is None:
                return
            token = message.get("token")
            if not isinstance(token, str) or not hmac.compare_digest(
                token.encode(), self._token.encode()
            ):
                send(writer, denied(NO_TOKEN))
                return
            op = message.get("op")
            if message.get("v") != WIRE_VERSION:
                # Another acphost (an upgrade): an idle host makes way for its run.
                if op == "prompt" and self._step_aside("another acphost version"):
                    send(writer, {"t": "gone"})
                else:
                    send(writer, denied(OTHER_VERSION))
                return
            if op == "status":
                send(writer, self.status())
            elif op == "cancel_running":
                send(writer, {"t": "cancelled", "running": await self._cancel_running()})
            elif op == "prompt":
                await self._serve_prompt(message, reader, writer)
        finally:
            with contextlib.suppress(ConnectionError, OSError):
                await writer.drain()
            writer.close()

    async def _serve_prompt(
        self, message: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if self._closing or self._stopping:
            send(writer, {"t": "gone"})
            return
        differs = self._differs(message)
        if differs:
            # Idle, the host makes way: the run starts one with its options,
            # which continues the session. Busy, it says so.
            if self._step_aside(f"a run with other options ({', '.join(differs)})"):
                send(writer, {"t": "gone"})
            else:
                send(writer, refused(differs_message(self.place.name, differs)))
            return
        if message.get("queue") is False and (self._busy() or self._prompts or self._pending):
            send(writer, {"t": "busy"})
            return
        blocks = prompt_blocks(message.get("prompt"))
        if blocks is None:
            send(writer, refused("the run sent a malformed prompt"))
            return
        raw_keep = message.get("keep_alive")
        keep_alive = keep_alive_seconds(raw_keep)
        if raw_keep is not None and keep_alive is None:
            send(writer, refused("the run sent a keep-alive that is not 0 to 168h"))
            return
        if len(self._prompts) >= MAX_WAITING:
            send(writer, {"t": "full", "waiting": len(self._prompts)})
            return
        asked = message.get("ticket")
        ticket = self._next_ticket
        if isinstance(asked, int) and asked in self._takeover - set(self._prompts):
            ticket = int(asked)  # a run of the dead host's queue: its place
            self._takeover.discard(ticket)
        self._next_ticket = max(self._next_ticket, ticket + 1)
        if keep_alive is not None:
            self.keep_alive = keep_alive
            self._save()
        text = message.get("text")
        wait = message.get("subagent_timeout")
        prompt = Prompt(
            writer,
            ticket,
            blocks,
            self.hooks.view(message, lambda m: send(writer, m)),
            self.hooks.label(text) if isinstance(text, str) else "",
            message.get("limits"),
        )
        if isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait >= 0:
            prompt.subagent_timeout = float(wait) if wait > 0 else None
        ahead = len(self._prompts)  # those before it: waiting, starting or running
        self._prompts[ticket] = prompt
        # By ticket: the registry holds its run's connection weakly.
        ON_DROP[writer] = functools.partial(self._dropped, ticket)
        self._save_queue()
        send(writer, {"t": "queued", "ticket": ticket, "ahead": ahead})
        if self.session is not None:
            self._enqueue(prompt)
        else:
            self._pending.append(prompt)
        self._changed.set()
        # The run may now only cancel; it closing its end cancels as well.
        while not prompt.done.is_set():
            request = asyncio.ensure_future(receive(reader))
            ended = asyncio.ensure_future(prompt.done.wait())
            await asyncio.wait({request, ended}, return_when=asyncio.FIRST_COMPLETED)
            ended.cancel()
            if not request.done():
                request.cancel()
                break
            got = request.result()
            if got is None and prompt.dropped:
                break  # we dropped it (it stopped reading): its turn goes on
            if got is not None and got.get("op") == "cancel" and prompt.started:
                prompt.view.note("cancelling (Ctrl-C again to leave at once)")
            if got is None or got.get("op") == "cancel":
                await self._cancel(prompt, "interrupted" if got else "the run went away")
                if got is None:
                    break
        await prompt.done.wait()

    def _differs(self, message: dict[str, Any]) -> list[str]:
        """The session options in which a run's request differs from this host's."""
        options = message.get("options")
        digest = message.get("options_digest")
        if options is None and isinstance(digest, str):  # a shortcut's run: the digest only
            return [] if hmac.compare_digest(digest, self._options_digest) else ["options"]
        options = options if isinstance(options, dict) else {}
        mine = self.hooks.fingerprint
        return sorted(k for k in set(mine) | set(options) if options.get(k) != mine.get(k))

    def _step_aside(self, why: str) -> bool:
        """Stop for a run this host cannot serve, if nothing waits or runs; whether it does.

        Not while its agent starts (the run that started it sends its prompt
        next), while a dead host's queue may still come back, nor while a
        turn's subagents go on in the session.
        """
        session = self.session
        if (
            session is None
            or self._busy()
            or self._prompts
            or self._pending
            or self._expected
            or self._stopping
            or session.running_subagents()
        ):
            return False
        logger.info("named: %s: the host makes way for it", why)
        self.stop()
        return True

    def _enqueue(self, prompt: Prompt) -> None:
        session = self.session
        assert session is not None
        self._starting = prompt
        try:
            budget = self.hooks.budget(prompt.limits)
            prompt.budgeted = budget is not None
            turn = session.enqueue(prompt.blocks, budget=budget)
        except Exception as exc:
            send(prompt.writer, {"t": "error", **self.hooks.error_report(exc)})
            self._prompts.pop(prompt.ticket, None)
            prompt.done.set()
            return
        finally:
            self._starting = None
        prompt.turn = turn
        self._by_turn[turn] = prompt
        task = asyncio.get_running_loop().create_task(self._finish(prompt, turn))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _finish(self, prompt: Prompt, turn: Turn) -> None:
        session = self.session
        assert session is not None
        from ..errors import AgentExited  # noqa: PLC0415

        try:
            result = await turn
        except AgentExited as exc:
            # A prompt the agent never got goes to the next host; the turn
            # that was running reports the failure (its run says the host
            # stopped, when we stop it).
            if prompt.started and not self._stopping:
                self._failed(prompt, exc)
            else:
                if prompt.started:
                    prompt.view.close()
                send(prompt.writer, {"t": "gone"})
        except Exception as exc:
            self._failed(prompt, exc)
        else:
            still = await self._wait_children(prompt, set(result.subagents_running))
            interrupted = turn.host_stop in INTERRUPTED or prompt.interrupted
            end = self.hooks.end_report(result, session, interrupted, prompt.budgeted)
            if still:
                end.setdefault("warnings", []).append(
                    f"subagents still running after {prompt.subagent_timeout:g} s: {still}; "
                    "they go on in the session (raise --subagent-timeout to wait longer)"
                )
            send(prompt.writer, {"t": "exit", "code": prompt.view.end(end)})
        finally:
            self._by_turn.pop(turn, None)
            self._prompts.pop(prompt.ticket, None)
            if self._current is prompt:
                self._current = None
            prompt.done.set()
            self._changed.set()
            self._save_queue()

    def _failed(self, prompt: Prompt, exc: BaseException) -> None:
        """The prompt's turn failed: its run says why (shown after its turn when it began)."""
        report = self.hooks.error_report(exc)
        if prompt.started:
            send(prompt.writer, {"t": "exit", "code": prompt.view.failed(report)})
        else:
            send(prompt.writer, {"t": "error", **report})

    async def _wait_children(self, prompt: Prompt, ids: set[str]) -> str:
        """Wait for the turn's subagents that outlive its answer, as a plain run does.

        Their updates go on reaching the run meanwhile. Returns the labels of
        those still running past the run's ``--subagent-timeout`` (empty when
        none is): they go on in the session; the next turn may be running.
        """
        session = self.session
        if not ids or session is None:
            return ""
        loop = asyncio.get_running_loop()
        bound = prompt.subagent_timeout
        deadline = None if bound is None else loop.time() + bound
        while not prompt.interrupted and not session.closed:
            running = [c for c in session.running_subagents() if c.id in ids]
            if not running:
                await self._settle()
                return ""
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return ", ".join(c.label for c in running)
            self._tree_changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._tree_changed.wait(), left)
        return ""

    async def _settle(self) -> None:
        """Let what the agent sends right after its subagents stop reach their run.

        An agent reports a child idle, then relays the child's answer to the
        parent (``session_message``): wait until the session has been quiet
        for a moment (bounded), so that the relay is shown before the end.
        """
        loop = asyncio.get_running_loop()
        end = loop.time() + _SETTLE_MOST
        while loop.time() < end:
            self._tree_changed.clear()
            try:
                await asyncio.wait_for(self._tree_changed.wait(), _SETTLE_QUIET)
            except asyncio.TimeoutError:
                return

    async def _cancel(self, prompt: Prompt, reason: str) -> None:
        if prompt in self._pending:
            self._pending.remove(prompt)
            self._prompts.pop(prompt.ticket, None)
            prompt.done.set()
            return
        turn = prompt.turn
        if turn is not None and turn.done:  # it waits for its subagents: stop waiting
            prompt.interrupted = True
            self._tree_changed.set()
            return
        if turn is None:
            return
        try:
            await turn.cancel(timeout=_CANCEL_GRACE, reason=reason)
        except Exception as exc:  # the agent ignored the cancel: its turn reports the error
            logger.warning("named: cancel failed: %s", exc)

    async def _cancel_running(self) -> bool:
        session = self.session
        turn = session.turn if session is not None else None
        if turn is None:
            return False
        prompt = self._by_turn.get(turn)
        if prompt is not None:
            await self._cancel(prompt, "cancelled by acphost cancel")
        return True

    # -- what the running turn's run is told ----------------------------------------

    def _observe(self, event: Any) -> None:
        from ..client import TurnStarted, UpdatesReceived  # noqa: PLC0415

        kind = type(event)
        if kind is UpdatesReceived:
            owner = event.session
            if owner is self.session:
                self._own_updates(event.updates)
            elif getattr(owner, "root", None) is self.session:
                self._child_updates(owner, event.updates)
            self._tree_changed.set()
        elif kind is TurnStarted and event.session is self.session is not None:
            prompt = self._by_turn.get(event.turn) or self._starting
            self._current = prompt
            if prompt is not None:
                prompt.started = True
                self._save_queue()
                send(prompt.writer, {"t": "start"})
                prompt.view.started(self.session, prompt.budgeted)
                if self._note is not None:
                    prompt.view.note(self._note)
                    self._note = None

    def _own_updates(self, updates: Any) -> None:
        """The session's updates go to the running turn's run.

        Those about a subagent go to the run whose turn began it (the
        subagent may outlive that turn).
        """
        current = self._current
        batch: list[Any] = []
        target = current
        for update in updates:
            to = current
            if getattr(update, "session_update", None) in _TREE_KINDS:
                to = self._child_owner(update, current)
            if to is not target:
                self._send_updates(target, batch)
                batch, target = [], to
            batch.append(update)
        self._send_updates(target, batch)

    def _send_updates(self, prompt: Prompt | None, updates: list[Any]) -> None:
        if prompt is not None and prompt.started and not prompt.done.is_set():
            show = prompt.view.update
            for update in updates:
                show(update)

    def _child_owner(self, update: Any, current: Prompt | None) -> Prompt | None:
        """The run a session-tree update belongs to: that of the child it names."""
        if update.session_update == "subagent_update":
            child = getattr(update, "session_id", None)
        else:  # a message between the session and a child: the other end is the child
            sender = getattr(update, "sender_session_id", None)
            own = self.session.id if self.session is not None else None
            child = sender if sender != own else getattr(update, "recipient_session_id", None)
        if not isinstance(child, str):
            return current
        return self._children.setdefault(child, current)

    def _child_updates(self, child: Any, updates: Any) -> None:
        """A subagent's updates go to the run whose turn started it, while it listens."""
        prompt = self._children.setdefault(child.id, self._current)
        if prompt is not None and prompt.started and not prompt.done.is_set():
            show = prompt.view.child
            for update in updates:
                show(child, update)

    def _tap(self, direction: str, line: bytes) -> None:
        """``-o jsonl``: the running turn's frames, as they crossed the wire, to its run."""
        prompt = self._current
        if prompt is not None and prompt.started and not prompt.done.is_set():
            prompt.view.frame(direction, line)

    def running_view(self) -> RunView | None:
        """The view of the run whose turn is running, if one is (what it is told goes there)."""
        prompt = self._current
        if prompt is None or not prompt.started or prompt.done.is_set():
            return None
        return prompt.view

    def status(self) -> dict[str, Any]:
        """What ``acphost status`` shows of this session."""
        session, run = self.session, self.run
        running = self._by_turn.get(session.turn) if session and session.turn else None
        queued = [p for p in self._prompts.values() if p is not running]
        warm = self._warm_until
        return {
            "t": "status",
            "name": self.place.name,
            "agent": self.place.agent,
            "cwd": self.place.cwd,
            "host_pid": os.getpid(),
            "agent_pid": run.pid if run is not None else None,
            "session_id": session.id if session is not None else None,
            "state": "starting" if session is None else "running" if self._busy() else "idle",
            "running": running.label if running is not None else None,
            "queue": [p.label for p in sorted(queued, key=lambda p: p.ticket)],
            "keep_alive": self.keep_alive,
            "warm_for": None if warm is None else max(0.0, warm - time.monotonic()),
        }
