"""Corpus packs: each kind of document's knowledge as data (research/packs/base.py); the engine reads
them through research/packs/registry.py."""
