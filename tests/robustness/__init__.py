"""The hostile-input corpus (corpus.py) and the tests every release runs over it (test_corpus.py)."""
