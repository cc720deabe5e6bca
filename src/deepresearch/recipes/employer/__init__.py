"""The employer recipe (seed 000): gather employer intelligence, then refuse to pass on
anything generic, fabricated or injected ("bad data is worse than no data").

One module per step: ``classify`` (Phase 1), ``queries``, ``gather`` and ``synthesize``
(Phase 2; ``extract`` is its model-free core), ``prune``, ``tiers``, ``bad_data``,
``industry``, ``judge`` and ``rerank`` (Phase 2B), ``routing`` (section 8), ``render``,
and ``run``, which wires them. ``lists`` loads the seed's lists from
``deepresearch/data/employer.toml``. Everything but ``gather``, ``synthesize``,
``classify.classify``, ``judge.evaluate`` and ``run`` is pure.

The service and library call :func:`run_employer` with an :class:`EmployerRequest`
(:func:`employer_request` builds one from a job's question and options).
"""

from deepresearch.recipes.employer.lists import EmployerLists, load_employer_lists
from deepresearch.recipes.employer.models import (
    REQUEST_OPTIONS,
    EmployerRequest,
    EmployerResult,
    employer_request,
)
from deepresearch.recipes.employer.render import render_employer
from deepresearch.recipes.employer.run import run_employer

__all__ = [
    "REQUEST_OPTIONS",
    "EmployerLists",
    "EmployerRequest",
    "EmployerResult",
    "employer_request",
    "load_employer_lists",
    "render_employer",
    "run_employer",
]
