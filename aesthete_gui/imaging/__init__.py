"""Image decoding, thumbnails, metadata, identity hashes, bursts and image properties (no torch, no Qt)."""
