"""What both sides of the token agent share and nothing else: the protocol, its causes, every socket name."""

SOCKET_ENV = "ASSISTANT_AUTH_SOCK"  # the agent a client asks (read by `client.where` alone)
PID_ENV = "ASSISTANT_AUTH_AGENT_PID"  # the agent's pid, as `agent` prints it (ssh-agent's SSH_AGENT_PID)
