"""The sweep reuses the test suite's session fixture (the default tables, built once)."""

from tests.conftest import data  # noqa: F401 (a pytest fixture)
