"""config.toml: read through one module (read), provisioned (provider), edited round-trip (edit)."""
