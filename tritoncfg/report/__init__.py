"""The output formats of `tritoncfg lint` (formats.py: the registry) and their renderers."""
