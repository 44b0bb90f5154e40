// WebUI module.
