"""The local authorization server the `demo` command runs (product: `assistant-auth demo`)."""
