"""Development tools, not product code: the local authorization server, the benchmarks, the
screenshot scenes and the one helper that points every setting at a local server."""
