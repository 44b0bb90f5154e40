// SyncProtocol module.
