// What the page takes from a run event's data (docs/events.md): one reader per event type,
// each giving plain values in the page's own words. Nothing else in the page looks at an
// event's data, so tests/web/test_event_fields.py can check every field read here against
// the events' JSON Schema (docs/events.schema.json): a reader reads `data.field`, or hands
// a list field's items to a reader of its own with `items(data.field, reader)`.

import { num } from "./dom.js";

function str(value) {
  return typeof value === "string" ? value : value === null || value === undefined ? "" : String(value);
}

function numberOrNull(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function count(value) {
  return Array.isArray(value) ? value.length : 0;
}

function strings(value) {
  return Array.isArray(value) ? value.map(str) : [];
}

function numbers(value) {
  return Array.isArray(value) ? value.map(num) : [];
}

/** The objects of a list field, each read by `read`. */
function items(value, read) {
  return Array.isArray(value) ? value.filter((item) => item && typeof item === "object").map(read) : [];
}

const unit = (item) => ({ id: str(item.id), text: str(item.text) });

const candidate = (item) => ({
  url: str(item.url),
  domain: str(item.domain),
  tier: str(item.tier),
  score: numberOrNull(item.final),
  read: item.decision === "read",
  reason: str(item.reason),
});

export const READERS = {
  plan_ready: (data) => ({ units: items(data.sub_questions, unit) }),
  reflection: (data) => ({ units: items(data.queued, unit) }),
  wave_started: (data) => ({ wave: num(data.wave), units: items(data.units, unit) }),
  search_completed: (data) => ({ subq: str(data.sub_question), kept: num(data.kept) }),
  sources_ranked: (data) => ({
    subq: str(data.sub_question),
    chosen: count(data.chosen),
    candidates: items(data.candidates, candidate),
  }),
  source_fetched: (data) => ({ url: str(data.url), domain: str(data.domain), title: str(data.title) }),
  source_failed: (data) => ({ url: str(data.url), domain: str(data.domain), reason: str(data.reason) }),
  // a research unit's summary (seed 004): how it ended, why not, and how long it ran
  evidence_added: (data) => ({
    subq: str(data.sub_question),
    count: num(data.count),
    status: str(data.status) || "completed",
    reason: str(data.failure_reason),
    seconds: numberOrNull(data.duration_s),
  }),
  gate_evaluated: (data) => ({ weak: strings(data.weak_sub_questions) }),
  model_call: (data) => ({
    input: num(data.input_tokens),
    output: num(data.output_tokens),
    cost: numberOrNull(data.cost_usd),
  }),
  // what a waiting run asks: a clarifying question, its plan, its findings or its report to review
  input_requested: (data) => ({
    kind: str(data.kind),
    request_id: str(data.request_id),
    question: str(data.question),
    brief: str(data.brief),
    sub_questions: items(data.sub_questions, (item) => ({ id: str(item.id), text: str(item.text), queries: strings(item.queries) })),
    // a plan's scope, evidence strategy and output format (seed 004), and the council's votes
    scope: str(data.scope),
    evidence_strategy: str(data.evidence_strategy),
    output_format: str(data.output_format),
    council: strings(data.council),
    // the pre-search's results the planner read (seed 002's brief context)
    presearch: strings(data.presearch),
    findings: items(data.findings, (item) => ({
      id: str(item.id),
      claim: str(item.claim),
      quote: str(item.quote),
      source_url: str(item.source_url),
      source_title: str(item.source_title),
    })),
    // the finished report's review: its sentences, and whether feedback can ask for a rewrite
    title: str(data.title),
    sentences: items(data.sentences, (item) => ({
      id: str(item.id),
      section: str(item.section),
      text: str(item.text),
      sources: numbers(item.sources),
    })),
    rewrite: data.rewrite === true,
  }),
  // the run's own totals, the final word on its tokens
  run_completed: (data) => ({
    input: numberOrNull(data.input_tokens),
    output: numberOrNull(data.output_tokens),
    cost: numberOrNull(data.cost_usd),
  }),
};

/** What the page takes from `event`'s data: its type's reader's values, `{}` for the others. */
export function eventData(event) {
  const read = Object.hasOwn(READERS, event.type) ? READERS[event.type] : null;
  const data = event.data && typeof event.data === "object" ? event.data : {};
  return read ? read(data) : {};
}
