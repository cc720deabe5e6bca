"""Deterministic intake rules: screening for prompt injection and obvious chitchat. Used
before any model sees the question, and as the whole intake when there is no model.
Injection attempts are ``malicious`` (a refusal); a question that is an unfilled template
or carries active markup is refused with an error before anything runs
(``refuse_unresearchable``: the research recipe's request, so every front end, and the
intake stage; ``input_problem`` is seed 000's suspicious-input screen in
``injection.suspicious``). A follow-up is read with its
thread (``intake_user``), and one on its thread's topic is never asked to clarify
(``settle_intent``, seed 004: a same-topic follow-up skips clarification)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from deepresearch.core.text import clip, words
from deepresearch.errors import SuspiciousInput
from deepresearch.injection import scan_direct
from deepresearch.injection.suspicious import suspicious_reason

Screen = Literal["research", "chitchat", "malicious"]
Decided = Literal["research", "chitchat", "clarify", "malicious"]

_INJECTION = re.compile(
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above) (?:instructions|prompts?)"
    r"|disregard (?:your|the|all) (?:instructions|rules|system prompt)"
    r"|reveal (?:your|the) (?:system prompt|instructions|api key)"
    r"|you are now (?:dan|in developer mode)"
    r"|print (?:your|the) (?:api key|environment variables)"
    r"|<\s*/?\s*(?:system|instructions?)\s*>",
    re.I,
)
_GREETINGS = frozenset(
    [
        "hi",
        "hello",
        "hey",
        "thanks",
        "thank",
        "thx",
        "ty",
        "bye",
        "goodbye",
        "good",
        "morning",
        "evening",
        "afternoon",
        "night",
        "ok",
        "okay",
        "cool",
        "yo",
        "sup",
        "howdy",
        "cheers",
        "great",
        "nice",
        "you",
        "there",
        "all",
        "everyone",
        "so",
        "much",
        "very",
        "lot",
        "a",
        "again",
        "folks",
    ]
)


def screen_question(question: str) -> Screen:
    """``malicious`` for prompt-injection attempts, ``chitchat`` for greetings and thanks
    with nothing to research, else ``research``."""
    if _INJECTION.search(question) or scan_direct(question):
        return "malicious"
    tokens = words(question)
    if not tokens:
        return "chitchat"
    if len(tokens) <= 5 and all(token in _GREETINGS for token in tokens):
        return "chitchat"
    return "research"


def input_problem(question: str) -> str | None:
    """Why the question cannot be researched as written (a template placeholder, a script
    or embedding tag, an injection attempt), or None."""
    return suspicious_reason(question, kind="question")


#: what to do about a refused question
REFUSAL_HINT = (
    "write it in plain words: fill in or remove template placeholders such as {{name}} or "
    "${name}, and describe HTML tags instead of pasting them"
)


def refuse_unresearchable(question: str) -> None:
    """Raise ``SuspiciousInput`` for a question the rules would research that holds a
    template placeholder or active markup (``input_problem``). A greeting is answered and
    an injection attempt gets a refusal report, so neither is refused here."""
    problem = input_problem(question) if screen_question(question) == "research" else None
    if problem:
        raise SuspiciousInput(f"the question was not researched: {problem}", hint=REFUSAL_HINT)


def chitchat_reply(question: str) -> str:
    return (
        "Hello! I research questions by searching, reading sources and writing a report "
        "in which every claim is cited and checked. Ask me something to research."
    )


def plan_ahead(*, screened: Screen, model_intake: bool, council: bool) -> bool:
    """Whether intake asks the planner for the plan at the same time as its own model call:
    both read only the question, so waiting for intake's verdict before planning is a pure
    wait on the run's critical path. Only when a model call decides the intent (the rules
    screened the question as research and a planner is configured): a refusal or greeting
    the rules catch is never planned. Not with the council, whose members, scores and
    events belong to the plan stage. A plan drafted for a question intake then does not
    research (chitchat, malicious, a clarifying question) is dropped; its tokens are still
    in the run's usage, as they were spent."""
    return screened == "research" and model_intake and not council


def intake_user(question: str, earlier: Sequence[str] = ()) -> str:
    """Intake's user prompt: the question, and for a follow-up the thread's earlier
    questions it follows (oldest first), so a terse follow-up ("why?") is read in the
    context that makes it clear."""
    if not earlier:
        return f"Question:\n{question}"
    lines = "\n".join(f"- {clip(text, 300)}" for text in earlier)
    return (
        f"Earlier questions in this thread, already researched:\n{lines}\n\n"
        f"Follow-up question (read it with the earlier ones):\n{question}"
    )


def settle_intent(
    intent: Decided, reply: str, *, no_clarify: bool, continues_thread: bool
) -> Decided:
    """The intent the run acts on: a clarifying question becomes research when asking is
    off (``no_clarify``), when there is no question to ask, or when the run follows up its
    thread on the same topic: the thread (its questions, its findings, its sources) says
    what the follow-up is about, so a person who already steered the research is not asked
    to explain a terse question again. A follow-up on another topic may still ask."""
    if intent == "clarify" and (no_clarify or not reply.strip() or continues_thread):
        return "research"
    return intent
