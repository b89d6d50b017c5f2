"""The names of a `decrypt` request's keys (docs/adapter-protocol.md#keys), shared by the fixtures' writer, the
catalog and the adapters: `kms.<id>` a master key of the test KMS, for a library that unwraps the file's key
material through a KMS hook; `footer` and `column.<dotted path>` the data keys themselves, for one that takes
explicit keys."""

KMS, FOOTER, COLUMN = "kms.", "footer", "column."
