"""What both sides of the token agent share and nothing else: the protocol, its causes, every socket name."""

from tui.core.agent.where import SOCKET_ENV as SOCKET_ENV  # defined where it is read

PID_ENV = "ASSISTANT_AUTH_AGENT_PID"  # the agent's pid, as `agent` prints it (ssh-agent's SSH_AGENT_PID)
