"""The ``drop7`` command: one dispatcher above every layer (docs/architecture.md)."""
