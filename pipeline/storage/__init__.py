"""The public data contract on disk: Parquet level files, manifests, staging.

format.py (schema, version, names), manifest.py (the manifest, validated),
writer.py (level files), reader.py (levels read back), table.py (point
look-ups), staging.py (builds in progress: the lock, the resume file, publish),
integrity.py (whether the files are the ones the manifest describes), files.py
(a data folder's small files read as untrusted input, written safely),
derived.py (arrays derived from tables, kept in a data folder but used only
when made here), scratch.py (a build's own files while it runs, none of the
contract: spill buckets, slots, rounds, raw path counts).
"""
