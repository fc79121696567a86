"""Tabletop Companion: a table-side referee for Japanese trick-taking card games."""

__version__ = "0.1.0"
