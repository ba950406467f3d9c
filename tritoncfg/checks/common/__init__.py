"""Analyses several rule families share: tensor byte sizes, data files, a model file's I/O."""
