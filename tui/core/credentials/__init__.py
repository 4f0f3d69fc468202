"""A credential slot and what keeps it usable: the slot file (`slot`: read, merge, write, what
"usable" means), the refresh written once (`refresh`), a remembered rejection (`rejections`), and the
locks shared with the official clients (`locks/`)."""
