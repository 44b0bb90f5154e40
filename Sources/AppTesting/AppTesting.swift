// AppTesting module.
