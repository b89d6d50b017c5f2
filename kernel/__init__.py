"""The floor below every other: what every layer shares and nothing of ours underlies (user errors, the entry-point
registries, command-line option types, checked JSON documents, text made safe for a sink, trees read and written)."""
