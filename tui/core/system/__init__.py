"""Facts about the system under us, behind one interface chosen once per platform: who is at the
other end of a socket, which process a pid is. Nothing else in the core reads `/proc` or a socket option."""
