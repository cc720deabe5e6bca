"""The employer recipe (seed 000): gather employer intelligence, then refuse to pass on
anything generic, fabricated or injected ("bad data is worse than no data").

One module per step: ``classify`` (Phase 1), ``queries``, ``gather`` and ``synthesize``
(Phase 2; ``extract`` is its model-free core), ``prune``, ``tiers``, ``bad_data``,
``industry``, ``judge`` and ``rerank`` (Phase 2B), ``routing`` (section 8), and the profile
as a page-neutral document (``document``, its words in ``profile_text``), which every
format but JSON draws (``export.formats``; ``render.render_employer`` for a library caller).
``nodes`` wires them into the LangGraph graph of ``graph`` (its state in ``state``),
checkpointed after every phase on the shared runner; ``recipe`` is what the registry
(``deepresearch.recipes.registry``) hands the front ends. ``lists`` loads the seed's
lists from ``deepresearch/data/employer.toml``. Everything but ``gather``,
``synthesize``, ``classify.classify``, ``judge.evaluate`` and ``nodes`` is pure.

Run it through the registry: ``deepresearch.research_employer()`` (library),
``deepresearch employer`` (CLI), ``recipe: "employer"`` (service).
"""

from deepresearch.recipes.employer.lists import EmployerLists, load_employer_lists
from deepresearch.recipes.employer.models import EmployerOptions, EmployerRequest, EmployerResult
from deepresearch.recipes.employer.render import render_employer

__all__ = [
    "EmployerLists",
    "EmployerOptions",
    "EmployerRequest",
    "EmployerResult",
    "load_employer_lists",
    "render_employer",
]
