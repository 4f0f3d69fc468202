"""Tokens handed out: the token service (single flight, refresh spacing) above the slots and their files."""
