"""Skiff, the YTsaurus schemaful wire format: schema model (`schema`), byte codec for values and table
row streams (`codec`), and the small YSON subset the row streams need for `$other_columns` (`yson`).

The format is described by seed 004 (the YTsaurus "Skiff" documentation page, in Russian); what the
seed leaves open is taken from the C++ reference `library/cpp/skiff` and `yt/yt/library/skiff_ext`,
cited where used.
"""
