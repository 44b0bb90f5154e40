// Templating module.
