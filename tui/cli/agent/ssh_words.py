"""`assistant-auth ssh`'s own flags among ssh's, as `tui.core.agent.ssh.sshline.split` is told
them: ssh has no long options, so a `--word` among its options is one of these (or a usage error)."""

OURS = ("--relay",)
OURS_WITH_VALUE = ("--account", "--region")  # `--account NAME` or `--account=NAME`
