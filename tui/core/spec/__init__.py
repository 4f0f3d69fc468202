"""The specification's rules and settings: regions and their hosts, paths, keys and storage names,
the OAuth context, the device identity, JWT claims, limits and the digest they use."""
