"""deepresearch as a service: durable research jobs behind an HTTP API (``deepresearch
serve``). Layers: ``tables`` (schema) → ``store`` (every query) → ``worker`` (runs jobs)
→ ``app`` and ``routes`` (HTTP). See docs/service.md."""
