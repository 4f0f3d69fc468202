"""What one person has here and does with it, across slots, config.toml and sign-ins: the overview
every view reads, signing out, whether two sign-ins are the same person."""
