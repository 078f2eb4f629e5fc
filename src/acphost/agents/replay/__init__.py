"""The replay agent: the agent's side of a recorded trace (``python -m acphost.agents.replay``)."""

from ._replay import main

__all__ = ["main"]
