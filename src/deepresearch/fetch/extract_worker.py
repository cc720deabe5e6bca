"""What the forkserver imports before it forks page-extraction workers.

The extractor and its libraries (about 100 MB of Python objects) are imported once, in
the forkserver; each worker is forked from it and shares those pages copy-on-write.
``gc.freeze()`` then moves every object imported so far out of the collector's reach:
a collection in a worker would otherwise write to each shared object's header and copy
most of those pages into every worker (measured: about 30 MB more private memory per
worker after the 181 ScrapingHub pages).

Only the forkserver imports this module (``ExtractPool`` names it in
``set_forkserver_preload``); the process that runs the pool never does.
"""

from __future__ import annotations

import gc

import deepresearch.fetch.extract_pool  # noqa: F401  (the worker side: extract and its libraries)

gc.freeze()
