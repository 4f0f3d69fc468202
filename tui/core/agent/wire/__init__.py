"""What both sides of the token agent share and nothing else: the protocol, its causes, every socket name."""
