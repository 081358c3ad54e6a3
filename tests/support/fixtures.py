"""Shared pytest fixtures that are not tied to one subsystem."""
