// SyncEngine module.
