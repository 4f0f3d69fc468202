"""The token agent: `ssh-agent` for access tokens. The refresh token stays on the person's own
machine; programs there, and on servers reached over SSH through the forwarded socket, ask the
agent for access tokens (docs/agent.md)."""
