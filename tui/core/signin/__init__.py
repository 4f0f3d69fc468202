"""Signing in with the device flow (spec 3.2, 4.1, 4.4), in four rooms:

- `protocol`: the device authorization and the token polls: requests in, tokens out; saves nothing;
- `attempt`: one attempt as a state machine (`Phase`, `TRANSITIONS`) that both faces draw;
- `follow`: the attempt on disk for other terminals: the record, the lease, joining, abandoning,
  and how a detached attempt ended (`place` names its files; `ondisk` is what Home and `status`
  read of them, loading `follow` only where a record is there);
- `store`: saving a finished sign-in (credentials under the slot's locks, then the managed provider).

The core API's names (`start_device_authorization`, `poll_device_token`, `persist_device_signin`)
stay importable from `tui.core`.
"""
