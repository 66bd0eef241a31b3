"""Aesthete: five-dimension aesthetic scoring, culling and personal taste learning."""

__version__ = "0.1.0"
