"""The council's member models (``--council-models``), built from their specs like every
role's model (``providers.build_chat_model``), at start, so a missing key or package is a
configuration error before any work, not a failed call in the middle of a run."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from deepresearch.llm.providers import build_chat_model
from deepresearch.settings_groups import ModelSettings


def build_council_models(
    settings: ModelSettings, *, council: bool
) -> dict[str, BaseChatModel | None]:
    """Spec -> chat model for each council member (none when the council is off, ``council``
    being ``RunPolicy.council``, or names no members: the planner then speaks in several
    personas)."""
    if not council:
        return {}
    return {
        spec: build_chat_model(
            spec,
            base_url=settings.model_base_url,
            api_key=settings.model_api_key,
            timeout_s=settings.model_timeout_s,
            temperature=settings.temperature_for("planner"),
        )
        for spec in dict.fromkeys(settings.council_models)
    }
