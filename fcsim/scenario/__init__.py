"""Scenario files: TOML in, checked and typed configuration out."""
