"""Agents that ship with acphost and run as their own processes.

``acphost.agents.demo`` is a scripted ACP agent (``python -m acphost.agents.demo``).
Nothing here imports the rest of acphost: these agents are independent peers
for the client's tests and demos.
"""
