"""OpenSSH as it is read: its command line and the hosts it knows."""
