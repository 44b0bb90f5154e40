// Worker module.
