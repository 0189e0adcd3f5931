"""Questions asked of built tables: the DuckDB catalog, the path macros, the SQL guard.

catalog.py (views and macros over the Parquet files, sealed before use),
walk_sql.py (the path macros generated per puzzle), sql_guard.py (what a
read-only query may be), readonly.py (the read-only database the API and
``query`` use), interrupt.py (Ctrl-C stops a running query), sql/ (the SQL
files shipped as ``queries/``).
"""
