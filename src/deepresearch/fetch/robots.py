"""robots.txt rules (RFC 9309) for one origin, parsed by ``urllib.robotparser``.

Outcomes of fetching ``/robots.txt`` (redirects followed under the fetcher's policy):

* 2xx: the file is parsed and checked for the fetcher's product token;
* 4xx (404, 403, 401, ...): "unavailable", everything is allowed;
* 5xx, or a file refused by policy (too big, redirected to a refused address):
  "unreachable", everything is disallowed (RFC 9309 §2.3.1.4). That verdict is cached
  only for ``error_ttl_s``, then the file is fetched again;
* connection errors and timeouts: nothing is cached, and the page fetch fails with the
  same network error (so it is retried like one) instead of a misleading robots verdict.

Known limit of the standard library parser: the first matching rule wins (not the longest)
and ``*`` / ``$`` wildcards in paths are not understood.
"""

from __future__ import annotations

import urllib.robotparser
from dataclasses import dataclass

ROBOTS_MAX_BYTES = 512_000  # RFC 9309: parse at least 500 KiB
ROBOTS_ERROR_TTL_S = 300.0


def product_token(user_agent: str) -> str:
    """``"deepresearch/0.1 (+https://...)"`` → ``"deepresearch"``."""
    token = user_agent.strip().split(" ", 1)[0].split("/", 1)[0]
    return token or "*"


@dataclass
class RobotsRules:
    """What one origin's robots.txt says; ``expires_at`` None means for the fetcher's life."""

    parser: urllib.robotparser.RobotFileParser | None  # None: no rules, allow_all decides
    allow_all: bool
    expires_at: float | None = None
    unreachable: bool = False

    @classmethod
    def from_text(cls, text: str) -> RobotsRules:
        parser = urllib.robotparser.RobotFileParser()
        parser.parse(text.splitlines())
        return cls(parser=parser, allow_all=False)

    @classmethod
    def allowing_all(cls) -> RobotsRules:
        return cls(parser=None, allow_all=True)

    @classmethod
    def disallowing_all(cls, expires_at: float) -> RobotsRules:
        return cls(parser=None, allow_all=False, expires_at=expires_at, unreachable=True)

    def fresh(self, now: float) -> bool:
        return self.expires_at is None or now < self.expires_at

    def can_fetch(self, agent: str, url: str) -> bool:
        if self.parser is None:
            return self.allow_all
        return self.parser.can_fetch(agent, url)
