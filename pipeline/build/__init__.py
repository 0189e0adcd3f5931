"""The build loop: loop.py (levels from an executor to Parquet, resumable),
resident.py (which finished levels stay in memory, which are still being written)."""
