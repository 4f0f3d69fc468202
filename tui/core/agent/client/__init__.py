"""Wherever a command asks the token agent: the connection, where tokens come from, the relay, forwards."""
