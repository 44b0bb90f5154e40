// SQLite module.
