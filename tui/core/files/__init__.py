"""Files, written and read one way: atomic writes and reserved room (`atomic`), private records
(`ownfiles`), the one regular-file reading policy (`regular`), strict JSON (`jsonutil`)."""
