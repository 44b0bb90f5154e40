// HTTP module.
