"""Spotting text that tries to instruct a model (indirect prompt injection). Pure.

``scan(text)`` reads text the way an attacker hopes a model will and returns what it found,
each with its kind and the words that gave it away. Detection is by class of attempt, not
by phrase:

- ``addressed``: text addressed to an AI, assistant, model, agent or language model ("Note
  to AI models:", "If you are an AI assistant ...", "Hey ChatGPT,", "LLMs reading this
  page must ...");
- ``delimiter``: role markers and chat-template tokens anywhere (``<|im_start|>``,
  ``[INST]``, ``<<SYS>>``, ``### Instruction:``, ``[system](#...)``, lines that open with a
  role such as "SYSTEM:" or "Assistant:" and then give an order or agree to obey);
- ``fetch``: an order to fetch, visit, open, include or cite a URL, or to send data out
  (a URL whose query is a slot for the report or the conversation, "send the report to
  ...", "cite https://... as the primary source");
- ``dictation``: wording that dictates what the answer or the report must say ("tell the
  user that ...", "your summary should say ...", "regardless of the question, answer ...");
- ``concealment``: a request to hide ("do not mention this note", "the user must never
  find out");
- ``override``, ``role``, ``exfiltration``, ``steering``: "ignore previous instructions",
  "you are now ...", a data-carrying image or a request for the system prompt, "always
  cite this page".

English, German, French, Spanish, Italian, Portuguese, Chinese, Russian and Japanese are
read. Besides the visible text, it reads what a browser hides but a model may still get:
text with zero-width characters removed, look-alike letters and l33tspeak folded, spaced
letters joined, Unicode tag characters decoded, HTML entities and percent-encoding undone,
base64 blobs decoded, and a letters-only form (also reversed) for the best-known phrases.
Ordinary prose that merely mentions instructions, assistants, answers or links does not
match: each rule needs an instruction aimed at a model. ``instructs(sentence)`` is the
looser, per-sentence test that keeps orders out of the evidence; ``instructing(text,
sentences)`` answers it for every sentence of a text in one pass. ``scan_direct`` keeps
the kinds that are attacks even in the user's own question (``DIRECT_KINDS``).
"""

from deepresearch.injection.decode import decode_tags, normalize
from deepresearch.injection.findings import (
    EXCERPT_CHARS,
    KINDS,
    Finding,
    FindingKind,
    Via,
    flag_reason,
)
from deepresearch.injection.scan import (
    DIRECT_KINDS,
    MAX_FINDINGS,
    MAX_SCAN_CHARS,
    first_finding,
    instructing,
    instructs,
    scan,
    scan_direct,
    scan_page,
)

__all__ = [
    "DIRECT_KINDS",
    "EXCERPT_CHARS",
    "KINDS",
    "MAX_FINDINGS",
    "MAX_SCAN_CHARS",
    "Finding",
    "FindingKind",
    "Via",
    "decode_tags",
    "first_finding",
    "flag_reason",
    "instructing",
    "instructs",
    "normalize",
    "scan",
    "scan_direct",
    "scan_page",
]
