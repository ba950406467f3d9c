"""The files `tritoncfg new` writes, installed as the package `tritoncfg.templates` (see setup.py).

Nothing here is imported for its code: `tritoncfg.scaffold.resources` reads the files with
`importlib.resources`, from a checkout and from an installed wheel alike.
"""
