"""deepresearch as a service: durable research jobs behind an HTTP API (``deepresearch
serve``). Layers: ``tables`` (schema) → ``store`` (every query) → ``worker`` (runs jobs)
→ ``app`` and ``routes`` (HTTP). See docs/service.md."""

#: where ``deepresearch jobs`` and ``ServiceClient`` look for the service by default (here,
#: not in ``client``, so the CLI's help shows it without loading httpx)
DEFAULT_SERVER = "http://127.0.0.1:8000"
