"""Numerical core: dimensions, judgments, ratings, bridge, metrics. numpy/scipy only (no torch, no Qt)."""
