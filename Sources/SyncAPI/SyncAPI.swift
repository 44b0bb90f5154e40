// SyncAPI module.
