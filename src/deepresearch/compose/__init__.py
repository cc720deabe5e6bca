"""The composition root: what builds the run's ports and graphs from ``Settings`` (the one
place outside the front ends that reads them), so that stages and adapters get the typed
groups and ports they need."""
