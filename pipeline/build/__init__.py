"""The build loop: loop.py (levels from an executor to Parquet, resumable),
held.py (which finished levels stay in memory, which are still being written)."""
