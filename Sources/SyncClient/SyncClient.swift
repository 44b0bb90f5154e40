// SyncClient module.
