"""One widget per file: each is the Qt view of one thing, given the AppContext (see context.py)."""
