"""Generators: config sections written from the model and the repository, through the proto model
and the comment-preserving edit layer (see docs/gen.md)."""
