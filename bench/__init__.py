"""deepresearch's benchmarks: ``python -m bench.run`` (``make bench``).

Every benchmark runs the real code paths over the real data in ``../shared/data``; only
model replies are scripted. Results go to ``bench/results/latest.json``; see
``docs/benchmarks.md``.
"""
