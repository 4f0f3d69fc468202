"""The usage texts written by hand: the program's own (`assistant-auth --help`) and those of the
commands parsed by hand (`token`, `exec`), shown by their `--help` and by the grammar
(`tui.cli.parser`), which must not load their handlers to show them. Each is translated where it
is shown."""

from tui.core.text.phrase import N_

USAGE = N_(
    """usage: assistant-auth [-v] [COMMAND] [options]

Sign in to your coding-assistant account from a terminal (OAuth 2.0 device flow).

commands:
  (none)     open the sign-in wizard (TUI)
  login      sign in (wizard; --no-tui for plain text; --account NAME for another account)
  status     show every credential slot and its state, never a token
  token      print a valid access token on stdout, refreshing when needed (--json, --min-ttl)
  exec       run a program with a valid access token in its environment
  refresh    refresh now and print the new expiry
  logout     remove a slot's credential file
  switch     choose the account the managed provider uses (NAME, or --region cn|global)
  doctor     diagnose (and --fix) the network path, files, config and credentials
  inspect    open the credential inspector (TUI)
  config     open the provider config editor (TUI)
  agent      keep the sign-in here and serve access tokens, as ssh-agent does (--stop, --foreground)
  ssh        ssh to a server with the token agent forwarded: no refresh token is stored there
  relay      on a server: keep the official client's credential file filled from the token agent
  demo       run the wizard against a local test server in a temporary home
  completion print a shell completion script (bash, zsh, fish)
  help       read a reference page in the terminal: assistant-auth help agent

options:
  -v, --verbose   log HTTP requests and responses to stderr, tokens and codes redacted
  --region R      preselect the region in the wizard (cn or global)
  --no-browser    never open a browser
  --version       print the version
  -h, --help      show help (also after a command: assistant-auth COMMAND --help)

exit codes: 0 ok; 1 sign in again (or denied, expired, not usable); 2 usage or error;
3 transient (network or server trouble: retry later, the stored sign-in is kept)
"""
)

TOKEN_HELP = N_(
    """usage: assistant-auth token [--json] [--min-ttl SECONDS]
                             [--account NAME [--region cn|global] | --slot NAME | --region cn|global |
                              --provider NAME | --base-url URL [--key KEY] [--oauth-host HOST]]

Print a valid access token on stdout and nothing else, refreshing it first when it has expired.
Exit codes: 0 a token was printed; 1 sign in again (no credentials, refresh rejected); 2 usage:
no such account, provider or slot, or the server's tokens live less than --min-ttl; 3 transient
(network or server trouble, a lock held too long): retry later, the stored sign-in is kept.

  --json             one JSON object: access_token, expires_at (epoch seconds), expires_in
                     (seconds left now), region, slot, account, identity (null when unknown),
                     schema_version
  --min-ttl SECONDS  the token must live at least that long (at least 30): refreshed first if not

slot selection (default: the active account, the slot of the provider managed:assistant-code,
else the default slot):
  --account NAME     a named account (work, personal); with --region when both regions have one
  --slot NAME        a credential slot by the name `status` lists
  --region REGION    the slot a sign-in in that region (cn or global) writes
  --provider NAME    the slot a provider of config.toml uses
  --base-url URL     an API base (alone, or with --key/--oauth-host)
  --key KEY          an OAuth storage key such as oauth/assistant-code
  --oauth-host HOST  the authorization host that refreshes it
"""
)

EXEC_HELP = N_(
    """usage: assistant-auth exec [--env NAME] [--min-ttl SECONDS] [SELECTOR] -- PROGRAM [ARGS...]

Run PROGRAM with a valid access token in its environment (ASSISTANT_ACCESS_TOKEN, or the variable
--env names), refreshed first when needed; never on its command line. Nothing runs when no token
can be had: exit 1 sign in again, 2 usage (no such account, provider or slot, or the server's
tokens live less than --min-ttl), 3 transient. Otherwise the exit code is PROGRAM's (127: not
found, 126: not executable), so PROGRAM's own codes 1-3 look like ours. The token does not
refresh itself inside PROGRAM: a long-running program should call `assistant-auth token` again.

  --env NAME         the variable that carries the token (default ASSISTANT_ACCESS_TOKEN)
  --min-ttl SECONDS  the token must live at least that long (at least 30): refreshed first if not
  SELECTOR           --account NAME [--region cn|global] | --slot NAME | --region cn|global |
                     --provider NAME | --base-url URL [--key KEY] [--oauth-host HOST]
"""
)

SSH_HELP = N_(
    """usage: assistant-auth ssh [--relay [--account NAME] [--region cn|global]] [SSH OPTIONS] HOST [COMMAND...]

The system ssh, with the token agent's socket forwarded to a fresh private path on the server and
ASSISTANT_AUTH_SOCK set there for the shell or COMMAND: `assistant-auth token`, `exec` and
`status` on the server get access tokens from this machine, and no refresh token is ever written
there. The path is removed on the server when the shell or COMMAND ends. Uses the agent this
shell points at (ASSISTANT_AUTH_SOCK), else starts one for this connection. Every other option is
ssh's; the exit code is ssh's.

  --relay   also run `assistant-auth relay` on the server while connected: the official client
            there works unchanged, from access tokens only (assistant-auth help agent)
  --account NAME
            with --relay: the account whose tokens the official client there gets (default:
            the active one on this machine); settled here before connecting
  --region cn|global
            with --relay: that region's sign-in, or with --account, the account's region
            when both regions have one

When the server cannot run `assistant-auth relay` (not installed, not on the PATH of the
non-interactive shell ssh runs commands in), it says so there and the connection goes on.
"""
)
