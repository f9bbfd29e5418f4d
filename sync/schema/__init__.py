"""The store's SQLite schema and its versioned migrations."""

from sync.schema.migrations import MIGRATIONS, SCHEMA_VERSION, migrate

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate"]
