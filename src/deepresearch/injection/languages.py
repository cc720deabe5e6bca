"""Rules for the languages besides English: German, French, Spanish, Italian, Portuguese
(``languages_latin``), Chinese, Russian and Japanese (``languages_other``). Role markers,
chat tokens and data-carrying URLs need no language (``markers``, ``urls``)."""

from __future__ import annotations

from deepresearch.injection.languages_latin import (
    FRENCH,
    GERMAN,
    ITALIAN,
    PORTUGUESE,
    SPANISH,
)
from deepresearch.injection.languages_other import CHINESE, JAPANESE, RUSSIAN
from deepresearch.injection.rules import Rule

OTHER_LANGUAGES: tuple[Rule, ...] = (
    *GERMAN,
    *FRENCH,
    *SPANISH,
    *ITALIAN,
    *PORTUGUESE,
    *CHINESE,
    *RUSSIAN,
    *JAPANESE,
)
