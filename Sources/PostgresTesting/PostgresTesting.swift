// PostgresTesting module.
