"""The token agent's commands, one module each: `agent` (serve), `ssh`, `relay`, and `status` through the agent."""
