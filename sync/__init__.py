"""Memory: SQLite store, CRDT document and the gRPC sync that merges offline edits."""
