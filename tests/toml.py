"""`tomllib` for the tests on every supported Python (3.10 reads TOML with `tomli`)."""

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]  # one name for both parsers

__all__ = ["tomllib"]
