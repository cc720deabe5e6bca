"""Search queries (pure): seed 000's strategies for a company and for a job description
(6.3), and the enhancement queries for a sparse first attempt (12.2)."""

from __future__ import annotations

from deepresearch.core.planning import dedupe_queries
from deepresearch.recipes.employer.models import Classification

DEFAULT_TITLE = "software engineer"
MAX_ENHANCEMENT_QUERIES = 4


def research_queries(classification: Classification, *, max_queries: int = 2) -> list[str]:
    """Seed 6.3. A company: its tech stack and culture, then its careers pages (a given
    role replaces the seed's fixed "software engineer"). A job description: the role with
    up to three skills, then the company's culture when it is known, else the first
    skill's industry trends. ``max_queries`` above 2 adds more queries of the same kind."""
    company = (classification.company_name or "").strip()
    title = (classification.job_title or "").strip()
    skills = [skill for skill in classification.extracted_skills if skill.strip()][:3]
    if classification.query_type == "company" and company:
        role = title or DEFAULT_TITLE
        queries = [
            f"{company} {role} tech stack engineering culture",
            f"{company} careers jobs software developer requirements",
            f"{company} company overview products",
            f"{company} engineering blog technology",
        ]
    else:
        role = title or DEFAULT_TITLE
        queries = [f"{role} {' '.join(skills)} requirements tech stack"]
        if company:
            queries.append(f"{company} engineering team culture values")
        elif skills:
            queries.append(f"{skills[0]} engineer job requirements industry trends")
        else:
            queries.append(f"{role} job requirements industry trends")
        if company:
            queries += [f"{company} company overview products", f"{company} {role} careers"]
        else:
            queries += [f"{role} responsibilities skills", f"{role} typical tech stack"]
    return _clean(queries)[:max_queries]


def generate_enhancement_queries(
    company_name: str | None, job_title: str | None, inferred_industry: str | None
) -> list[str]:
    """Seed 12.2, as written: five alternative-source queries for a named company, one
    industry query when both a job title and an industry are known, at most four.
    (With a company the industry query is the sixth and so never kept: the seed's order.)"""
    queries: list[str] = []
    company = (company_name or "").strip()
    if company:
        queries.extend(
            [
                f"{company} github engineering open source",
                f"{company} engineering blog technology",
                f"{company} linkedin engineering team",
                f"{company} crunchbase funding technology stack",
                f"{company} glassdoor engineer interview",
            ]
        )
    title = (job_title or "").strip()
    if title and inferred_industry:
        queries.append(f"{inferred_industry} {title} typical tech stack 2024")
    return queries[:MAX_ENHANCEMENT_QUERIES]


def _clean(queries: list[str]) -> list[str]:
    return [q for q in dedupe_queries([" ".join(q.split()) for q in queries]) if q]
