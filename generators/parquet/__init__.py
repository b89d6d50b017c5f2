"""The Parquet track: codec, footer model, bases, mutations, profiles, inspector, reference reader."""
