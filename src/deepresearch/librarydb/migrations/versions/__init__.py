"""The library's schema revisions, oldest first."""
