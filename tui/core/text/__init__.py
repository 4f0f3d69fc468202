"""Words for people: the catalogs and their reader, phrases said in the reader's language, cell
widths, times, untrusted text as one printable line, secrets redacted, hints, the help documents."""
