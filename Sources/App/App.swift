// App module.
