"""Model layer: the only place (with training/) that imports torch or transformers, always lazily."""
