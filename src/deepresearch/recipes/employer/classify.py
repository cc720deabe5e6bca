"""Phase 1 (CONNECTING): is the input a company name or a job description, and which
company, job title and skills does it name?

:func:`classify_input` is the deterministic answer (pure). With a planner model,
:func:`classify` asks it to refine the entities of a job description; whatever the model
names must appear in the text it was given, so it cannot invent a company or a skill.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.llm.gateway import Gateway
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import Classification, EmployerRequest, QueryType

STAGE = "classify"
#: an input longer than this many words is a job description, not a name
MAX_NAME_WORDS = 12
MAX_SKILLS = 10

_JD_MARKERS = re.compile(
    r"\b(?:responsibilities|requirements|qualifications|we are looking for|we're looking for|"
    r"you will|you'll|about the role|about you|job description|apply now|benefits|"
    r"years of experience|nice to have|what you'll do)\b",
    re.I,
)
_TITLE_WORDS = (
    r"(?:Engineer|Developer|Scientist|Manager|Designer|Analyst|Architect|Administrator|"
    r"Lead|Specialist|Consultant|Researcher|Programmer|SRE|Director|Intern)"
)
_TITLE_LINE = re.compile(
    r"^\s*(?:job\s+)?(?:title|position|role)\s*[:\-–]\s*(.+?)\s*$", re.I | re.M
)
_TITLE_PHRASE = re.compile(
    rf"\b(?:hiring|looking for|seeking|join us as|as)\s+(?:an?\s+)?((?:[A-Z][\w/+.-]*\s+){{0,4}}{_TITLE_WORDS}s?)\b"
)
_TITLE_ANYWHERE = re.compile(rf"\b((?:[A-Z][\w/+.-]*\s+){{0,3}}{_TITLE_WORDS})\b")
# a name stays on one line: "Cloud Gaming\nGoogle is hiring" names Google
_NAME = r"([A-Z][\w&.'-]*(?:[ \t]+(?:[A-Z][\w&.'-]*|&|of|and)){0,4})"
_COMPANY_PATTERNS = (
    re.compile(r"^\s*(?:company|employer|organi[sz]ation)\s*[:\-–]\s*(.+?)\s*$", re.I | re.M),
    re.compile(rf"^\s*About\s+{_NAME}\s*:?\s*$", re.M),
    re.compile(rf"\b{_NAME}[ \t]+is[ \t]+(?:hiring|looking|seeking)\b"),
    re.compile(rf"\b(?:join|at)\s+(?:the\s+team\s+at\s+)?{_NAME}(?=[\s,.!;:]|$)"),
)
_NOT_COMPANIES = frozenset(
    {"we", "our", "the", "you", "this", "a", "an", "us", "about", "join", "role", "team"}
)


class EntityExtraction(BaseModel):
    """What the planner model is asked for."""

    query_type: QueryType
    company_name: str | None = None
    job_title: str | None = None
    extracted_skills: list[str] = Field(default_factory=list)


SYSTEM = f"""You read the input of an employer research tool and extract its entities.
{DATA_RULE}
Say whether the input is a company name ("company") or a job posting ("job_description").
Give the employer's name, the job title and the concrete skills and technologies asked for,
each exactly as written in the input. Leave a field empty when the input does not say it."""


def classify_input(request: EmployerRequest, lists: EmployerLists) -> Classification:
    """The deterministic Phase 1: a job description when one is given or when the
    company argument reads like one (long, or with a posting's headings)."""
    raw = (request.company or "").strip()
    company = " ".join(raw.split())
    role = " ".join((request.role or "").split()) or None
    description = (request.job_description or "").strip()
    if not description and looks_like_job_description(company):
        description, company = raw, ""
    if not description:
        return Classification(query_type="company", company_name=company or None, job_title=role)
    return Classification(
        query_type="job_description",
        company_name=company or find_company(description),
        job_title=role or find_job_title(description),
        extracted_skills=find_skills(description, lists),
    )


def looks_like_job_description(text: str) -> bool:
    words = text.split()
    return len(words) > MAX_NAME_WORDS or (len(words) > 4 and bool(_JD_MARKERS.search(text)))


def find_company(text: str) -> str | None:
    for pattern in _COMPANY_PATTERNS:
        for match in pattern.finditer(text):
            name = match.group(1).strip().rstrip(".,;:")
            if name and name.split()[0].lower() not in _NOT_COMPANIES and len(name) <= 80:
                return name
    return None


def find_job_title(text: str) -> str | None:
    for pattern in (_TITLE_LINE, _TITLE_PHRASE):
        match = pattern.search(text)
        if match:
            return match.group(1).strip().rstrip(".,;:")
    first = text.strip().splitlines()[0] if text.strip() else ""
    match = _TITLE_ANYWHERE.search(first)
    return match.group(1).strip() if match else None


def find_skills(text: str, lists: EmployerLists) -> list[str]:
    """Known technologies in ``text``, in order of first mention."""
    found: list[str] = []
    for match in lists.tech_pattern().finditer(text):
        name = lists.canonical_tech(match.group(0))
        if name not in found:
            found.append(name)
    return found[:MAX_SKILLS]


async def classify(
    gateway: Gateway, request: EmployerRequest, lists: EmployerLists
) -> Classification:
    """Phase 1: the rules, refined by the planner model for a job description. Entities
    the model names that are not in the input are ignored."""
    rules = classify_input(request, lists)
    if rules.query_type != "job_description" or not gateway.has_model("planner"):
        return rules
    text = (request.job_description or request.company or "").strip()
    user = data_block("input", text)
    if request.company and request.job_description:
        user = f"Company given by the user: {request.company}\n\n{user}"
    answer = await gateway.structured(
        "planner", EntityExtraction, system=SYSTEM, user=user, stage=STAGE
    )
    if answer is None:
        return rules
    given_company = bool(request.company and request.job_description)
    return merge_extraction(
        rules, answer, text, keep_company=given_company, keep_title=bool(request.role)
    )


def merge_extraction(
    rules: Classification,
    answer: EntityExtraction,
    text: str,
    *,
    keep_company: bool = False,
    keep_title: bool = False,
) -> Classification:
    """The model's entities where they are found in ``text``, else the rules'; what the
    user gave (``keep_*``) always wins. The query type stays the rules' (a given job
    description is a job description)."""
    lowered = text.lower()

    def present(value: str | None) -> str | None:
        value = " ".join((value or "").split())
        return value if value and value.lower() in lowered else None

    skills = [skill for skill in (present(s) for s in answer.extracted_skills) if skill]
    merged_skills = list(dict.fromkeys([*skills, *rules.extracted_skills]))[:MAX_SKILLS]
    return rules.model_copy(
        update={
            "company_name": rules.company_name
            if keep_company
            else present(answer.company_name) or rules.company_name,
            "job_title": rules.job_title
            if keep_title
            else present(answer.job_title) or rules.job_title,
            "extracted_skills": merged_skills,
            "decided_by": "model",
        }
    )
