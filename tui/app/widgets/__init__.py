"""Reusable widgets of the app."""
