"""random_ops (see the issue that owns it)."""

__all__ = []
