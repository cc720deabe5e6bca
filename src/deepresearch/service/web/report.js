// The report, rendered from GET /v1/research/{id}/report?format=json: sections of
// sentences whose [n] citations open the verified quote behind them and a link to the
// source; the audit summary; contradictions and limitations; the cited sources; and every
// source considered (GET .../sources) with every score and the reason it was read or dropped.

import {
  fmtInt, fmtPercent, fmtScore, h, newId, safeUrl, shortUrl, sourceLink, text,
} from "./dom.js";
import { tierName } from "./watch.js";

const DIMENSIONS = {
  comprehensiveness: "Comprehensiveness",
  insight: "Insight",
  instruction_following: "Instruction following",
  readability: "Readability",
};
/** Report kinds that are a reply to the user, not a report: nothing to evaluate. */
const REPLIES = new Set(["chitchat", "refusal", "clarification"]);

const VERDICT_FLAGS = {
  partial: "partly supported",
  unsupported: "not supported",
  uncited: "no citation",
};

/** Evidence id -> source number [n], for verified evidence only (as export/report_text.py). */
function citationNumbers(report) {
  const bySource = new Map(report.sources.map((ref) => [ref.id, ref.number]));
  const out = new Map();
  for (const item of report.evidence) {
    if (bySource.has(item.source_id) && item.verification && item.verification.status === "PASS") {
      out.set(item.id, bySource.get(item.source_id));
    }
  }
  return out;
}

function arr(value) {
  return Array.isArray(value) ? value : [];
}

export function normalizeReport(raw) {
  const report = raw && typeof raw === "object" ? raw : {};
  return {
    ...report,
    title: String(report.title || "Report"),
    summary: arr(report.summary),
    sections: arr(report.sections),
    sources: arr(report.sources),
    evidence: arr(report.evidence),
    limitations: arr(report.limitations),
    suggestions: arr(report.suggestions),
    usage: report.usage && typeof report.usage === "object" ? report.usage : {},
  };
}

export class ReportView {
  constructor(root, jobId, { download, evaluate } = {}) {
    this.root = root;
    this.jobId = jobId;
    this.download = download;
    this.evaluate = evaluate;
    this.open = null; // the citation whose quote is showing
    this.onDocClick = (event) => {
      if (this.open && !this.open.wrap.contains(event.target)) this.hide(this.open);
    };
    document.addEventListener("click", this.onDocClick);
  }

  destroy() {
    document.removeEventListener("click", this.onDocClick);
  }

  render(rawReport, sources) {
    const report = normalizeReport(rawReport);
    this.report = report;
    this.numbers = citationNumbers(report);
    this.evidence = new Map(report.evidence.map((item) => [item.id, item]));
    this.refs = new Map(report.sources.map((ref) => [ref.number, ref]));
    this.citedUrls = new Set(report.sources.map((ref) => ref.url));
    const article = h("article", { class: "report card", "aria-labelledby": "report-title" },
      this.header(report),
      this.audit(report),
      report.summary.length ? h("div", { class: "report-summary" }, this.paragraph(report.summary)) : null,
      report.sections.map((section, index) => this.section(section, index)),
      this.listSection("Limitations", report.limitations, "limitations"),
      this.listSection("Suggestions", report.suggestions, "suggestions"),
      this.citedSources(report),
      this.considered(sources),
      this.evaluation(report),
      this.usage(report));
    this.root.replaceChildren(article);
  }

  header(report) {
    const ledger = report.claims && typeof report.claims === "object" ? report.claims : null;
    const contradicted = ledger ? arr(ledger.claims).filter((claim) => claim && claim.contradiction) : [];
    const disputed = contradicted.length;
    // claims whose every disagreement only the model's reading sees (as the Markdown says)
    const unconfirmed = contradicted.filter((claim) => {
      const seen = Object.values(claim.contradiction_basis || {});
      return seen.length > 0 && seen.every((basis) => basis === "model");
    }).length;
    const contradictions = report.sections.findIndex((s) => s.kind === "contradictions");
    // [format, label, file extension]: the formats are export.formats.FORMATS, in order
    const formats = [
      ["md", "Markdown", "md"], ["html", "HTML", "html"], ["json", "JSON", "json"],
      ["pdf", "PDF", "pdf"], ["docx", "Word", "docx"], ["odt", "OpenDocument", "odt"],
      ["latex", "LaTeX", "tex"], ["bibtex", "BibTeX", "bib"], ["ris", "RIS", "ris"],
      ["csljson", "CSL-JSON", "json"],
    ];
    return h("header", { class: "report-header" },
      h("h2", { id: "report-title" }, report.title),
      report.notice ? h("p", { class: "notice" }, report.notice) : null,
      ledger && ledger.claim_count
        ? h("p", { class: "confidence" },
          `Confidence ${fmtPercent(ledger.job_confidence)}${ledger.certainty ? ` (${ledger.certainty})` : ""}: ${fmtInt(ledger.claim_count)} claim(s) from ${fmtInt(ledger.source_count)} source(s).`)
        : null,
      disputed
        ? h("p", { class: "disagree" }, h("span", { "aria-hidden": "true" }, "⚠ "),
          `Sources disagree on ${disputed} claim(s)`,
          contradictions >= 0 ? ": see “" : ".",
          contradictions >= 0 ? h("a", { href: `#/runs/${encodeURIComponent(this.jobId)}`, "data-jump": `report-section-${contradictions}`, onclick: (e) => this.jump(e) }, report.sections[contradictions].heading) : null,
          contradictions >= 0 ? "”." : null,
          unconfirmed
            ? h("span", { class: "model-only" },
              ` For ${unconfirmed} of them only the model's reading finds the disagreement; the rule-based check does not confirm it.`)
            : null)
        : null,
      h("p", { class: "downloads" }, "Download: ",
        formats.map(([format, label, extension], i) => [
          i ? " · " : null,
          h("a", {
            href: `v1/research/${encodeURIComponent(this.jobId)}/report?format=${format}`,
            download: `${this.jobId}.${extension}`,
            "data-format": format,
            onclick: (event) => this.download && this.download(event, format),
          }, label),
        ])));
  }

  jump(event) {
    event.preventDefault();
    const target = document.getElementById(event.currentTarget.dataset.jump);
    if (target) {
      target.scrollIntoView({ block: "start" });
      target.querySelector("h3")?.focus();
    }
  }

  audit(report) {
    const audit = report.audit;
    if (!audit && !["synthesized", "extractive"].includes(report.kind)) return null;
    const box = h("section", { class: "audit-summary", "aria-labelledby": "audit-heading" },
      h("h3", { id: "audit-heading" }, "Audit"));
    if (!audit || audit.policy === "off" || audit.method === "none") {
      box.append(h("p", {}, "This report was not audited: its sentences were not checked against their sources."));
      return box;
    }
    box.append(
      h("p", { class: "audit-line", "data-el": "audit-line" },
        `${fmtInt(audit.checked)} of ${fmtInt(audit.sentences)} sentences checked against their sources; `,
        h("strong", {}, `${fmtInt(audit.supported)} supported`),
        `, ${fmtInt(audit.partial)} partly, ${fmtInt(audit.unsupported)} not supported.`),
      h("dl", { class: "audit-facts" },
        fact("Policy", `${audit.policy} (${audit.method})`),
        fact("Factual without a citation", fmtInt(audit.uncited_factual)),
        fact("Removed", fmtInt(audit.removed)),
        fact("Invented citations dropped", fmtInt(audit.invented_citations)),
        fact("Citation precision", audit.citation_precision === null || audit.citation_precision === undefined ? "–" : fmtPercent(audit.citation_precision))));
    return box;
  }

  section(section, index) {
    const kind = ["body", "verified_findings", "contradictions", "key_facts"].includes(section.kind) ? section.kind : "body";
    const headingId = `report-section-${index}-heading`;
    return h("section", { class: `report-section kind-${kind.replace("_", "-")}`, id: `report-section-${index}`, "aria-labelledby": headingId },
      h("h3", { id: headingId, tabindex: "-1" },
        kind === "contradictions" ? h("span", { "aria-hidden": "true" }, "⚠ ") : null,
        String(section.heading || "")),
      section.layout === "list"
        ? h("ul", { class: "report-list" }, arr(section.paragraphs).map((p) => h("li", {}, this.paragraph(arr(p && p.sentences)))))
        : arr(section.paragraphs).map((p) => this.paragraph(arr(p && p.sentences))),
      section.table && typeof section.table === "object" ? this.table(section.table, headingId) : null);
  }

  /** A section's table (key facts, or a planned table, timeline or comparison): text cells
   *  and a Source column of citations, flagged as the audit marked the row. */
  table(table, headingId) {
    return h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-labelledby": headingId },
      h("table", { class: "report-table" },
        h("thead", {}, h("tr", {}, [...arr(table.columns), "Source"].map((c) => h("th", { scope: "col" }, String(c))))),
        h("tbody", {}, arr(table.rows).map((row) => h("tr", {},
          arr(row && row.cells).map((c) => h("td", {}, String(c))),
          h("td", {}, this.sentence({ text: "", citations: arr(row && row.citations), audit: row && row.audit, audit_note: row && row.audit_note })))))));
  }

  paragraph(sentences) {
    const p = h("p", {});
    sentences.forEach((sentence, i) => {
      if (!sentence || typeof sentence !== "object") return;
      if (i) p.append(" ");
      p.append(this.sentence(sentence));
    });
    return p;
  }

  sentence(sentence) {
    const verdict = typeof sentence.audit === "string" ? sentence.audit : "";
    const span = h("span", { class: `sentence${verdict ? ` audit-${verdict}` : ""}` }, String(sentence.text || ""));
    const byNumber = new Map();
    for (const cid of arr(sentence.citations)) {
      const n = this.numbers.get(cid);
      if (n === undefined) continue;
      if (!byNumber.has(n)) byNumber.set(n, []);
      byNumber.get(n).push(this.evidence.get(cid));
    }
    for (const n of [...byNumber.keys()].sort((a, b) => a - b)) {
      span.append(...this.citation(n, byNumber.get(n)));
    }
    if (VERDICT_FLAGS[verdict]) {
      span.append(" ", h("span", { class: "flag" },
        h("span", { "aria-hidden": "true" }, "⚠ "),
        `[${VERDICT_FLAGS[verdict]}${sentence.audit_note ? `: ${sentence.audit_note}` : ""}]`));
    }
    return span;
  }

  /** [n]: a disclosure button; hover, focus or click shows the verified quote(s). */
  citation(n, items) {
    const ref = this.refs.get(n);
    const popId = newId("quote");
    const button = h("button", {
      type: "button", class: "cite", "aria-expanded": "false", "aria-controls": popId,
      "data-source": n,
      "aria-label": `Source ${n}${ref ? `: ${ref.title || ref.domain}` : ""}; show the verified quote`,
    }, `[${n}]`);
    const pop = h("span", { class: "cite-pop", id: popId, hidden: true, role: "group", "aria-label": `Source ${n}: verified quote` },
      h("span", { class: "pop-head" },
        h("span", { class: "pop-number" }, `[${n}]`), " ",
        h("span", { class: "pop-title" }, ref ? ref.title || shortUrl(ref.url) : "Source"),
        ref && ref.domain ? h("span", { class: "pop-domain" }, ref.domain) : null),
      items.map((item) => h("span", { class: "pop-item" },
        h("q", { class: "pop-quote" }, String(item.quote || "")),
        h("span", { class: "pop-verified" }, verificationLabel(item.verification)))),
      ref && safeUrl(ref.url)
        ? sourceLink(ref.url, ["Open the source", h("span", { class: "visually-hidden" }, " (new tab)")], { class: "pop-link" })
        : null);
    const wrap = h("span", { class: "cite-wrap" }, button, pop);
    const state = { wrap, button, pop, pinned: false, timer: 0 };
    button.addEventListener("click", (event) => {
      event.stopPropagation();
      if (!pop.hidden && state.pinned) this.hide(state);
      else this.show(state, true);
    });
    button.addEventListener("focus", () => {
      if (!state.quiet) this.show(state, false);
    });
    wrap.addEventListener("focusout", (event) => {
      if (!wrap.contains(event.relatedTarget)) this.hide(state);
    });
    wrap.addEventListener("mouseenter", () => {
      clearTimeout(state.timer);
      this.show(state, state.pinned);
    });
    wrap.addEventListener("mouseleave", () => {
      if (state.pinned || wrap.contains(document.activeElement)) return;
      state.timer = setTimeout(() => this.hide(state), 250);
    });
    wrap.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !pop.hidden) {
        event.stopPropagation();
        this.hide(state);
        state.quiet = true; // focus goes back to [n] without reopening the quote
        button.focus({ preventScroll: true });
        state.quiet = false;
      }
    });
    return [" ", wrap];
  }

  show(state, pinned) {
    if (this.open && this.open !== state) this.hide(this.open);
    clearTimeout(state.timer);
    state.pinned = state.pinned || pinned;
    state.pop.hidden = false;
    state.button.setAttribute("aria-expanded", "true");
    this.open = state;
    this.place(state.pop);
  }

  hide(state) {
    clearTimeout(state.timer);
    state.pinned = false;
    state.pop.hidden = true;
    state.button.setAttribute("aria-expanded", "false");
    if (this.open === state) this.open = null;
  }

  /** Keep the quote box inside the viewport. */
  place(pop) {
    pop.style.left = "";
    const rect = pop.getBoundingClientRect();
    const margin = 8;
    let shift = 0;
    if (rect.right > window.innerWidth - margin) shift = window.innerWidth - margin - rect.right;
    if (rect.left + shift < margin) shift = margin - rect.left;
    if (shift) pop.style.left = `${shift}px`;
  }

  listSection(title, items, key) {
    if (!items.length) return null;
    return h("section", { class: `report-list ${key}`, "aria-labelledby": `report-${key}` },
      h("h3", { id: `report-${key}` }, title),
      h("ul", {}, items.map((item) => h("li", {}, String(item)))));
  }

  citedSources(report) {
    if (!report.sources.length) return null;
    const cited = new Set();
    for (const section of [{ paragraphs: [{ sentences: report.summary }] }, ...report.sections]) {
      for (const p of arr(section.paragraphs)) for (const s of arr(p && p.sentences)) for (const c of arr(s && s.citations)) cited.add(c);
    }
    const quotes = new Map();
    for (const item of report.evidence) {
      if (!cited.has(item.id) || !item.verification || item.verification.status !== "PASS") continue;
      if (!quotes.has(item.source_id)) quotes.set(item.source_id, []);
      quotes.get(item.source_id).push(item);
    }
    return h("section", { class: "cited-sources", "aria-labelledby": "cited-heading" },
      h("h3", { id: "cited-heading" }, "Sources"),
      h("ol", {}, report.sources.map((ref) => h("li", { value: ref.number, "data-source": ref.number },
        h("span", { class: "src-number" }, `[${ref.number}]`), " ",
        sourceLink(ref.url, ref.title || shortUrl(ref.url), { class: "src-link" }),
        h("span", { class: "src-domain" }, ` — ${ref.domain}`),
        (quotes.get(ref.id) || []).map((item) => h("blockquote", { class: "src-quote" }, String(item.quote || "")))))));
  }

  considered(sources) {
    if (!Array.isArray(sources)) return null;
    const rows = [...sources].sort((a, b) => Number(b.cited) - Number(a.cited)
      || Number(b.decision === "read") - Number(a.decision === "read")
      || (b.final || 0) - (a.final || 0));
    const cols = [
      ["Final", "final"], ["Signal", "signal_score"], ["Model", "model_score"],
      ["Credibility", "credibility"], ["Authority", "domain_authority"], ["Recency", "recency"],
      ["Retrieval", "retrieval_relevance"],
    ];
    return h("section", { class: "considered", "aria-labelledby": "considered-heading" },
      h("h3", { id: "considered-heading" }, `Every source considered (${rows.length})`),
      h("p", { class: "help" }, "Each candidate with every score, whether it was read or dropped and why; cited sources link to the page."),
      h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-labelledby": "considered-heading" },
        h("table", { class: "considered-table" },
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, "Source"),
            h("th", { scope: "col" }, "Tier"),
            h("th", { scope: "col" }, "Decision"),
            h("th", { scope: "col" }, "Reason"),
            cols.map(([label]) => h("th", { scope: "col", class: "num" }, label)),
            h("th", { scope: "col" }, "All scores"))),
          h("tbody", {}, rows.map((row) => h("tr", { "data-decision": String(row.decision || ""), "data-cited": row.cited ? "true" : "false" },
            h("th", { scope: "row", class: "src-cell" },
              row.cited && this.citedUrls.has(row.url)
                ? sourceLink(row.url, row.title || shortUrl(row.url))
                : h("span", { title: String(row.url || "") }, String(row.title || shortUrl(row.url))),
              h("span", { class: "src-domain" }, String(row.domain || ""))),
            h("td", {}, h("span", { class: `tier tier-${String(row.tier || "").toLowerCase()}` }, tierName(row.tier))),
            h("td", {}, h("span", { class: `decision decision-${row.decision || "none"}` },
              row.decision === "read" ? (row.cited ? "Read, cited" : "Read") : row.decision === "dropped" ? "Dropped" : "Not ranked")),
            h("td", { class: "reason" }, String(row.reason || "")),
            cols.map(([, key]) => h("td", { class: "num" }, key === "domain_authority" ? (row[key] ?? "–") : fmtScore(row[key]))),
            h("td", {}, allScores(row.scores))))))));
  }

  /** The report's evaluation (figures and the judge's scores), or a button to make one. */
  evaluation(report) {
    const ev = report.evaluation && typeof report.evaluation === "object" ? report.evaluation : null;
    if (!ev && (!this.evaluate || REPLIES.has(report.kind))) return null;
    const box = h("section", { class: "evaluation", "aria-labelledby": "evaluation-heading", "data-el": "evaluation" },
      h("h3", { id: "evaluation-heading" }, "Evaluation"));
    if (!ev) {
      const status = h("p", { class: "help", role: "status" },
        "Citation precision and recall, sub-question coverage, and a judge's scores on DeepResearch Bench's four dimensions.");
      const button = h("button", { type: "button", "data-el": "evaluate" }, "Evaluate this report");
      button.addEventListener("click", async () => {
        button.disabled = true;
        text(status, "Evaluating the report…");
        try {
          await this.evaluate();
        } catch (error) {
          button.disabled = false;
          text(status, `The evaluation failed: ${error && error.detail ? error.detail : "try again"}`);
        }
      });
      box.append(status, button);
      return box;
    }
    const pct = (value) => (value === null || value === undefined ? "n/a" : fmtPercent(value));
    const covered = arr(ev.covered).length;
    box.append(h("dl", { class: "eval-facts" },
      fact("Citation precision", `${pct(ev.citation_precision)} (${fmtInt(ev.supported_cited)} of ${fmtInt(ev.cited_sentences)} cited sentences supported)`),
      fact("Citation recall", `${pct(ev.citation_recall)} (${fmtInt(ev.factual_supported)} of ${fmtInt(ev.factual_sentences)} factual sentences cited and supported)`),
      fact("Sub-question coverage", `${pct(ev.coverage)} (${fmtInt(covered)} of ${fmtInt(ev.sub_questions)})`)));
    const scores = arr(ev.scores).filter((s) => s && DIMENSIONS[s.dimension]);
    if (!scores.length) {
      box.append(h("p", { class: "judge-note" }, String(ev.judge_note || "No judge scores.")));
      return box;
    }
    box.append(
      h("p", { class: "judge" }, `Judge (${String(ev.judge_model || "model")}), 0–10: overall ${fmtScore1(ev.overall)}`),
      h("table", { class: "eval-scores" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, "Dimension"), h("th", { scope: "col", class: "num" }, "Score"), h("th", { scope: "col" }, "Reason"))),
        h("tbody", {}, scores.map((s) => h("tr", { "data-dimension": s.dimension },
          h("th", { scope: "row" }, DIMENSIONS[s.dimension]),
          h("td", { class: "num" }, fmtScore1(s.score)),
          h("td", { class: "reason" }, String(s.reason || "")))))));
    return box;
  }

  usage(report) {
    const usage = report.usage;
    return h("p", { class: "usage" },
      `Run ${report.run_id || this.jobId}: ${report.sources.length} sources cited, `
      + `${fmtInt(usage.calls)} model calls, ${fmtInt(usage.input_tokens)} input and `
      + `${fmtInt(usage.output_tokens)} output tokens, ${costText(usage)}.`);
  }
}

/** The cost beside the tokens, as the markdown report says it (core/budget.py cost_text). */
function costText(usage) {
  const cost = typeof usage.cost_usd === "number" ? usage.cost_usd : 0;
  const unpriced = usage.unpriced_calls || 0;
  if (usage.calls && unpriced >= usage.calls) return `cost unknown (${fmtInt(unpriced)} calls to unpriced models)`;
  return `cost $${cost.toFixed(4)}` + (unpriced ? ` + ${fmtInt(unpriced)} unpriced calls` : "");
}

function fmtScore1(value) {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(1) : "–";
}

function fact(label, value) {
  return h("div", {}, h("dt", {}, label), h("dd", {}, value));
}

function verificationLabel(verification) {
  if (!verification) return "Not verified";
  const methods = {
    exact: "exact match",
    normalized: "match after normalizing spacing and punctuation",
    fuzzy: "close match",
    context: "match in context",
    none: "no method",
  };
  const status = verification.status === "PASS" ? "Verified" : "Not verified";
  return `${status} against the source: ${methods[verification.method] || verification.method} (score ${fmtScore(verification.score)})`;
}

function allScores(scores) {
  if (!scores || typeof scores !== "object") return "";
  const skip = new Set(["url", "domain", "reason"]);
  const entries = Object.entries(scores).filter(([key]) => !skip.has(key));
  return h("details", { class: "all-scores" },
    h("summary", {}, `${entries.length} values`),
    h("dl", {}, entries.map(([key, value]) => h("div", {},
      h("dt", {}, key.replaceAll("_", " ")),
      h("dd", {}, typeof value === "number" && !Number.isInteger(value) ? value.toFixed(3) : String(value ?? "–"))))));
}

