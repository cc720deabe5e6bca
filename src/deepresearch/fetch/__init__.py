"""Fetching pages and extracting their text."""
