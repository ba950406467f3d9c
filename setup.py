"""Packaging glue that pyproject.toml cannot express: `templates/` (the files `tritoncfg new`
writes) installs as the package `tritoncfg.templates`, so a wheel carries them. Everything else
about the package is in pyproject.toml."""

from setuptools import find_namespace_packages, setup

TEMPLATES = [
    "tritoncfg.templates",
    *(f"tritoncfg.templates.{name}" for name in find_namespace_packages("templates")),
]

setup(packages=[*find_namespace_packages(include=["tritoncfg*"]), *TEMPLATES])
