// Storage module.
