"""One prompt from the command line: flags -> run options -> observers -> the turn -> exit code.

The run is opened by the one assembly (:func:`acphost.launch.open_run`),
which starts the agent's process first; the heavier parts of ours (the host
configuration, the taps, the history, the prompt's files) are built in its
``prepare`` step, so the agent's start-up overlaps them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from ..config import describe_protocol
from ..errors import (
    AcpError,
    AcpTimeout,
    AgentExited,
    AuthRequired,
    OutputFileError,
    RequestError,
)
from ..launch import (
    EXIT_BUDGET,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageProblem,
    fail,
    open_run,
)
from ..safetext import escape_json_for_terminal
from . import _collector
from ._edge import Edge, is_styled_terminal, is_terminal, warn
from ._parser import usage_error

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..client import HostConfig, Session, Turn, TurnResult
    from ..launch import Refusals, Run, RunOptions
    from ._ask import TtyAsker
    from ._prepare import Prepared
    from ._render import Renderer

__all__ = ["run_prompt"]

logger = logging.getLogger("acphost.cli")

# Seconds the agent gets to exit after EOF at the end of a run (then SIGTERM, SIGKILL).
_CLOSE_GRACE = 0.5

# Seconds a Ctrl-C gives the agent to end the turn (and its subagents their work).
_CANCEL_GRACE = 5.0

# Signals that end a run at once, as a second Ctrl-C does: a service manager
# stopping us (SIGTERM), the terminal going away (SIGHUP). Left to their
# default action, they would end acphost alone: the agent runs in its own
# process group (its children with it) and so do the terminals, so nothing
# else would stop them.
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class _Interrupted(Exception):
    pass


class _OutputClosed(Exception):
    """The run stopped because stdout cannot be written.

    ``args[0]`` is the write error to report, or None when the reader went
    away (`acphost ... | head`), which is not worth a message.
    """


class _Mirror:
    """The ``-o jsonl`` tap: frames one by one, or a block of them at once (see ``acphost.rpc``)."""

    __slots__ = ("_run",)

    def __init__(self, run: PromptRun) -> None:
        self._run = run

    def __call__(self, direction: str, line: bytes) -> None:
        self._run.tap(direction, line)

    def receive_block(self, block: bytes) -> None:
        self._run.mirror_block(block)


class PromptRun:
    """The state of one ``acphost [prompt]`` invocation."""

    def __init__(self, prepared: Prepared) -> None:
        args = prepared.args
        self.args = args
        self.cwd = prepared.cwd
        self.settings = prepared.settings
        self.spec = prepared.spec
        self.outputs = prepared.outputs
        self.target = prepared.target
        self.jsonl = args.output in ("jsonl", "json")
        self.out = sys.stdout
        self.jsonl_terminal = self.jsonl and is_terminal(self.out)
        self.edge = Edge(is_terminal(self.out))
        self.interrupted = 0
        self.opened: Run | None = None
        self.running: Turn | None = None
        self.blocks: list[Any] | None = None
        self.strict_failure: AcpError | None = None
        self.output_closed = False
        self.output_error: OSError | None = None
        self.asker: TtyAsker | None = None
        self.refusals: Refusals | None = None
        self.listed = False
        self.stop_signal: int | None = None

    def _abort(self, error: AcpError) -> None:
        """--strict: the agent broke the protocol; end it now."""
        self.strict_failure = error
        self.kill_agent()

    def kill_agent(self) -> None:
        """SIGKILL the agent's whole process group now (the run is over).

        Asked while the agent starts, it is killed as soon as it is up.
        """
        if self.opened is not None:
            self.opened.kill()

    def stop_now(self, sig: signal.Signals) -> None:
        """SIGTERM or SIGHUP: end the run as a second Ctrl-C does.

        The agent's process group is killed at once; the turn ends with the
        agent gone, is recorded as interrupted, and the client's close ends
        the terminals. The run exits ``128 + sig``, as a shell reports it.
        """
        if self.stop_signal is None:
            self.stop_signal = int(sig)
            self.interrupted += 1
            turn = self.running  # no cancel says why: the turn ends with the agent killed
            if turn is not None and turn.host_stop is None:
                turn.host_stop = "interrupted"
        self.kill_agent()

    def interrupted_code(self) -> int:
        """The exit code of an interrupted run: 130 for Ctrl-C, else 128 + the signal."""
        return EXIT_INTERRUPTED if self.stop_signal is None else 128 + self.stop_signal

    # -- setup -------------------------------------------------------------------

    def host_config(self) -> HostConfig:
        from ..launch import HostChoices, Refusals, build_host_config  # noqa: PLC0415 - after the spawn

        a = self.args
        choices = HostChoices(
            write=a.write,
            yolo=a.yolo,
            approve=a.approve,
            policy_file=a.permission_policy,
            audit_log=a.audit_log,
            audit_stream=self.outputs.audit,
            fs=not a.no_fs,
            terminal=not a.no_terminal,
            output_files=self.outputs.protected,
            settings_file=self.settings.path,
        )
        # No dialog says what the policy refused: the run's last line does.
        self.refusals = Refusals()
        forms = None
        if a.ask:
            from ._ask import TtyAsker, TtyForms  # noqa: PLC0415 - only when asking

            self.asker = TtyAsker.open()
            # Forms are offered only where someone can fill them in.
            forms = TtyForms(self.asker) if self.asker.can_ask else None
        return build_host_config(
            choices,
            self.spec,
            asker=self.asker,
            redactor=self.outputs.redactor,
            elicitation=forms,
            refusals=self.refusals,
        )

    def tap(self, direction: str, line: bytes) -> None:
        """``-o jsonl``: mirror one frame, exactly as it crossed the wire, on stdout."""
        if self.output_closed or line.lstrip()[:1] != b"{":
            return  # stdout stays JSON only: non-JSON agent output is reported on stderr
        if self.jsonl_terminal:
            line = escape_json_for_terminal(line)  # the same JSON, inert on a terminal
        self._mirror(line + b"\n")

    def mirror_block(self, block: bytes) -> None:
        """``-o jsonl``: mirror a block of received frames (whole lines) with one write.

        The same bytes as :meth:`tap` on each line: a flood of updates then
        costs one write and one flush per block, not per frame.
        """
        if self.output_closed:
            return
        lines = [line for line in block.split(b"\n") if line.lstrip()[:1] == b"{"]
        if not lines:
            return
        if self.jsonl_terminal:
            lines = [escape_json_for_terminal(line) for line in lines]
        lines.append(b"")
        self._mirror(b"\n".join(lines))

    def _mirror(self, data: bytes) -> None:
        buffer = getattr(self.out, "buffer", None)
        try:
            if buffer is not None:
                buffer.write(data)
                buffer.flush()
            else:
                self.out.write(data.decode("utf-8", "replace"))
        except (BrokenPipeError, ValueError):
            # The reader of our stdout went away (`acphost -o jsonl | head`): stop quietly.
            self.output_gone()
        except OSError as exc:  # a full disk: the run stops and says so
            self.output_failed(exc)

    def output_gone(self) -> None:
        """The reader of stdout went away: stop the agent; the run ends quietly."""
        self.output_closed = True
        self.kill_agent()

    def output_failed(self, exc: OSError) -> None:
        """Stdout could not be written (a full disk): stop the agent; the run fails with ``exc``."""
        self.output_error = exc
        self.output_gone()

    def selected_agent_line(self) -> None:
        # Name and command only: args and env may carry secrets.
        frame = {
            "jsonrpc": "2.0",
            "method": "client/selected_agent",
            "params": {"name": self.spec.name, "command": self.spec.command},
        }
        self.tap("send", json.dumps(frame, separators=(",", ":")).encode())

    async def listings(self, run: Run) -> None:
        """Print the sections asked for (text modes only; jsonl has the frames)."""
        from ._setup import listings  # noqa: PLC0415

        asked = run.options.protocol
        text = await listings(run.client, run.session, self.args, self.edge.field, asked)
        if text is not None and not self.jsonl:
            self.out.write(text + "\n")
            self.out.flush()
            self.listed = True

    # -- the turn --------------------------------------------------------------------

    def styled(self) -> bool:
        """Whether the turn renders styled Markdown (``-o text`` on a capable terminal).

        Elsewhere (a pipe, a file, a terminal that cannot redraw) it is plain
        text, sanitised when stdout is a terminal.
        """
        return self.args.output == "text" and is_styled_terminal(self.out)

    def renderer(self, session: Session) -> Renderer | None:
        if self.jsonl:
            return None
        from ._render import make_renderer  # noqa: PLC0415

        loop = asyncio.get_running_loop()
        return make_renderer(
            self.out,
            sys.stderr,
            session.state,
            output=self.args.output,
            styled=self.styled(),
            terminal=self.edge.terminal,
            defer=loop.call_soon,
            call_later=loop.call_later,
            on_closed=self.output_gone,
            on_error=self.output_failed,
        )

    async def turn(self, session: Session, blocks: list[Any]) -> int:
        from ._budget import NO_USAGE_YET, run_budget  # noqa: PLC0415

        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[Any]] = set()
        stopping = asyncio.Event()  # Ctrl-C: stop waiting for subagents too

        def on_sigint() -> None:
            self.interrupted += 1
            if self.interrupted == 1:
                (renderer.note if renderer is not None else warn)(
                    "cancelling (Ctrl-C again to stop the agent)"
                )
                pending.add(
                    loop.create_task(session.cancel(timeout=_CANCEL_GRACE, reason="interrupted"))
                )
                stopping.set()
            else:
                self.kill_agent()

        budget = run_budget(self.args, self.spec)
        if budget is not None and session.state.usage is None:
            warn(NO_USAGE_YET)
        renderer = self.renderer(session)
        _collector.resume()  # the run's modules are all imported now
        turn = self.running = session.prompt(blocks, budget=budget)
        remove_listener: Callable[[], None] | None = None
        if renderer is not None:
            # Shown as the reader takes them, the session's updates and its
            # subagents' in one wire order (a child may go on streaming after
            # the turn's answer); the turn's own queue is then not needed.
            update_, child_ = renderer.update, renderer.child

            def show(owner: Any, update: Any) -> None:
                if owner is session:
                    update_(update)
                else:
                    child_(owner, update)

            remove_listener = session.add_listener(show, subagents=True)
        loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            result = await turn
            if result.subagents_running:
                await self.wait_subagents(session, renderer, stopping)
        except (AgentExited, AcpTimeout):
            if self.interrupted:
                raise _Interrupted from None
            if self.output_closed:
                raise _OutputClosed(self.output_error) from None
            if self.strict_failure is not None:
                raise self.strict_failure from None
            raise
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            if remove_listener is not None:
                remove_listener()
            if renderer is not None:
                renderer.close()
            for task in pending:
                task.cancel()
            # Retrieve their outcome (often AgentExited after a second Ctrl-C),
            # or asyncio prints "Task exception was never retrieved".
            await asyncio.gather(*pending, return_exceptions=True)
        if self.output_error is not None:  # the last flush failed
            raise _OutputClosed(self.output_error)
        return self.outcome(result, session, budget is not None)

    async def wait_subagents(
        self, session: Session, renderer: Renderer | None, stopping: asyncio.Event
    ) -> None:
        """Wait for the subagents that go on after the turn's answer, within the bound.

        Past ``--subagent-timeout``, the ones still running are cancelled
        (those the agent allows) and the run says so and ends. A Ctrl-C
        (``stopping``) has cancelled them already: they get the cancel's
        grace to stop, then the run ends as interrupted.
        """
        say = renderer.note if renderer is not None else warn
        timeout = self.args.subagent_timeout
        waiting = asyncio.ensure_future(
            session.wait_subagents(timeout=timeout if timeout > 0 else None)
        )
        stop = asyncio.ensure_future(stopping.wait())
        try:
            await asyncio.wait({waiting, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if waiting.done():
            try:
                waiting.result()
            except AcpTimeout:
                say(
                    f"subagents still running after {timeout:g} s: {self._names(session)}; "
                    "stopping them (raise --subagent-timeout to wait longer)"
                )
                await session.cancel()
            return
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        try:
            await session.wait_subagents(timeout=_CANCEL_GRACE)
        except AcpTimeout:
            say(f"subagents still running, stopped with the agent: {self._names(session)}")
        raise _Interrupted

    def _names(self, session: Session) -> str:
        return self.edge.field(", ".join(child.label for child in session.running_subagents()))

    def outcome(self, result: TurnResult, session: Session, budgeted: bool) -> int:
        """Report how the turn ended (usage line, budget, stop reason); the exit code."""
        from ._budget import NO_USAGE_AT_END, usage_line  # noqa: PLC0415

        if self.args.output == "text" and not self.output_closed:
            line = usage_line(result, session.state.usage, session.turn_cost, session.cost_start)
            if line:  # the currency is the agent's word: redacted like a report
                line = self.outputs.redactor.redact_text(line)
                self.out.write(f"[usage] {self.edge.field(line)}\n")
                self.out.flush()
        if self.interrupted:
            return self.interrupted_code()
        if result.budget_exceeded is not None:
            warn(str(result.budget_exceeded))
            return EXIT_BUDGET
        if budgeted and not result.usage_reported:
            warn(NO_USAGE_AT_END)
        elif result.budget_warning is not None:  # the agent's words: cleaned by warn
            warn(result.budget_warning)
        if result.stop_reason != "end_turn":
            warn(f"stop reason: {result.stop_reason}")
        return EXIT_OK

    async def main(self, prompt: str | None) -> int:
        loop = asyncio.get_running_loop()
        for sig in _STOP_SIGNALS:
            loop.add_signal_handler(sig, self.stop_now, sig)
        try:
            self.opened = run = open_run(self.run_options(prompt))
            if self.stop_signal is not None:  # it came before the run was made
                run.kill()
            return await self._run(run)
        except AcpError:
            if self.stop_signal is not None:  # the end of the agent we stopped
                raise _Interrupted from None
            if self.output_closed:  # the end of the agent we stopped ourselves
                raise _OutputClosed(self.output_error) from None
            if self.strict_failure is not None:  # --strict ended the agent: say why
                raise self.strict_failure from None
            raise
        finally:
            for sig in _STOP_SIGNALS:
                loop.remove_signal_handler(sig)
            if self.asker is not None:
                self.asker.close()
            for line in self.refusals.lines() if self.refusals is not None else ():
                warn(line)

    def run_options(self, prompt: str | None) -> RunOptions:
        """The flags as run options (light: the heavier parts come in :meth:`prepare`).

        Raises:
            UsageProblem: a ``--config`` item that is not ``KEY=VALUE``; a
                ``--system-prompt @FILE`` that cannot be read.

        """
        from ..launch import RunOptions, SessionChoice  # noqa: PLC0415
        from ._setup import config_items  # noqa: PLC0415
        from ._sysprompt import system_prompt_options  # noqa: PLC0415

        a, target = self.args, self.target
        mcp = self.settings.mcp_servers
        if target is None or target.transcript is not None:
            session = SessionChoice(mcp_servers=mcp)
        else:
            session = SessionChoice(
                "reopen",
                target.session_id,
                mcp,
                cannot_reopen="; to start a new session that is given the earlier one's "
                f"transcript, run: acphost {target.flag} --replay-context PROMPT",
            )

        def prepare(options: RunOptions) -> None:
            self.prepare(options, prompt)

        return RunOptions(
            self.spec,
            self.cwd,
            close_grace=_CLOSE_GRACE,
            client={
                "init_timeout": a.init_timeout,
                "session_timeout": a.init_timeout,
                "unstable": a.unstable,
                "notices": a.notices,
                "subagents": a.subagents,
                # The command line shows updates as they come and records the
                # history from them: the session state need not keep messages.
                "keep_history": False,
            },
            auth=a.auth or None,
            session=session,
            mode=a.mode,
            model=a.model,
            config=config_items(a.config),
            prepare=prepare,
            **system_prompt_options(a, self.spec),
            **self.protocol_options(),
        )

    def protocol_options(self) -> dict[str, Any]:
        """The run's ``protocol`` and ``mcp_tools``: a reopened session keeps its version.

        ``--continue`` and ``--resume`` ask for the version the recorded
        session agreed on, unless ``--protocol`` says otherwise: a session
        spoken in v2 is reopened in v2 (``session/resume``), whatever the
        settings' default. A new session (``--replay-context``) asks as usual.
        """
        from ..config import protocol_options  # noqa: PLC0415

        chosen = protocol_options(self.spec)
        target = self.target
        if (
            self.args.protocol is None
            and target is not None
            and target.transcript is None
            and target.protocol in (1, 2)
        ):
            chosen["protocol"] = target.protocol
        return chosen

    def prepare(self, options: RunOptions, prompt: str | None) -> None:
        """While the agent starts: the host, the taps, the trace, the history; the prompt."""
        from ._edge import set_log_redactor  # noqa: PLC0415
        from ._prepare import prompt_blocks  # noqa: PLC0415
        from ._trace import LiveCheck  # noqa: PLC0415

        if self.styled() and prompt is not None:
            from rich import markdown  # noqa: F401, PLC0415

            from . import _live  # noqa: F401, PLC0415 - rich too, while the agent starts

        a = self.args
        outputs = self.outputs
        set_log_redactor(outputs.redactor.redact_text)
        options.host = self.host_config()
        options.trace = outputs.trace
        if prompt is not None:  # a run that only lists records nothing
            options.recorder = outputs.open_history()
            if options.recorder is not None:
                from ._continue import agent_key  # noqa: PLC0415

                options.record_as = agent_key(self.spec, outputs)
                if self.target is not None:  # --continue, --resume: its conversation goes on
                    options.recorder.join(self.target.history_id)
        self.live = LiveCheck(strict=a.strict, on_abort=self._abort, redactor=outputs.redactor)
        options.taps.append(self.live)
        if self.jsonl:
            self.selected_agent_line()
            options.taps.append(_Mirror(self))
        if prompt is not None:
            blocks, missing = prompt_blocks(prompt, self.cwd)
            for name in missing:
                warn(f"@{name}: no such file; it is not attached")
            self.blocks = blocks

    async def _run(self, run: Run) -> int:
        target = self.target
        try:
            async with run:
                return await self._opened(run)
        except RequestError:
            if run.failed_in == "session" and target is not None and target.history_id is not None:
                warn(
                    f"the agent could not reopen the session; {target.flag} --replay-context "
                    "starts a new one that is given its transcript"
                )
            raise

    async def _opened(self, run: Run) -> int:
        """The open run: the live check's verdict, the listings, the turn."""
        if self.live.failure is not None:
            raise self.live.failure
        client, session = run.client, run.session
        # -v says which version the agent agreed to (and what was asked).
        logger.info(describe_protocol(client.protocol_version, run.options.protocol))
        await self.listings(run)
        recording = run.recording
        self.outputs.save_session(session.id, self.cwd, recording, client.protocol_version)
        blocks = self.blocks
        if blocks is None:
            return EXIT_OK
        if self.target is not None and self.target.transcript is not None:
            from ._continue import context_blocks  # noqa: PLC0415

            blocks = [*context_blocks(client, self.target), *blocks]
        if self.listed:
            self.out.write("\n")
        code = await self.turn(session, blocks)
        if self.strict_failure is not None:
            raise self.strict_failure
        return code


def run_prompt(args: argparse.Namespace) -> int:
    """Run one prompt (or only the listings); return the exit code."""
    from ._prepare import prepare_run  # noqa: PLC0415

    try:
        prepared = prepare_run(args)
    except UsageProblem as exc:
        return usage_error(str(exc))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    try:
        return _attempts(prepared)
    finally:
        prepared.outputs.close()


def _attempts(p: Prepared) -> int:
    args, spec = p.args, p.spec
    for attempt in range(2):
        run = PromptRun(p)
        try:
            if attempt:
                p.outputs.reopen_trace()
            return asyncio.run(run.main(p.prompt))
        except (KeyboardInterrupt, _Interrupted):
            return run.interrupted_code()
        except _OutputClosed as exc:
            error = exc.args[0] if exc.args else None
            if error is not None:
                fail(f"cannot write the output: {error.strerror or error}")
                # What is still buffered would fail again when Python exits.
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_ERROR
        except OutputFileError as exc:
            return usage_error(str(p.outputs.usage_problem(exc)))
        except AuthRequired as exc:
            from ._failure import auth_message, terminal_login  # noqa: PLC0415

            if attempt == 0 and terminal_login(exc, args.auth, spec):
                args.auth = None
                continue  # reconnect with the fresh login
            fail(auth_message(exc, spec, p.outputs.redactor))
            return EXIT_ERROR
        except Exception as exc:
            from ._failure import report  # noqa: PLC0415

            return report(exc, spec, p.outputs.redactor)
    return EXIT_ERROR
