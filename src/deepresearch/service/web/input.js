// What a waiting run asks (issue 15), and the person's answer: an answer box for a
// clarifying question, the plan editor (edit the brief; reword, remove or add
// sub-questions; approve, research the edited plan, or cancel the run), or the findings
// review (untick findings to drop them, name a gap for one more wave, or cancel the run), or
// the report review (edit sentences, each audited again against its citations; feedback for
// one rewrite when the run has a writer model; or cancel the run). The answer goes to
// POST v1/research/{id}/input; the service checks it, and a 422 shows what is wrong here.

import { api, ApiError } from "./api.js";
import { announce, h, newId, sourceLink } from "./dom.js";

const MAX_SUB_QUESTIONS = 8;

export class InputPanel {
  constructor(container, jobId, { onAnswered }) {
    this.container = container;
    this.jobId = jobId;
    this.onAnswered = onAnswered;
    this.requestId = null;
  }

  // show what the run asks (the job's input_request, or an input_requested event's data)
  show(request) {
    if (!request || !request.kind) return;
    const id = request.id || request.request_id || "";
    if (this.requestId === id && !this.container.hidden) return;
    this.requestId = id;
    const body = request.kind === "plan" ? this.planEditor(request)
      : request.kind === "findings" ? this.findingsReview(request)
        : request.kind === "report" ? this.reportReview(request) : this.answerBox(request);
    this.container.replaceChildren(body);
    this.container.hidden = false;
    announce(request.kind === "plan" ? "The run waits for you to review its plan"
      : request.kind === "findings" ? "The run waits for you to review its findings"
        : request.kind === "report" ? "The run waits for you to review its report"
          : "The run asks you a question");
  }

  hide() {
    this.container.hidden = true;
    this.container.replaceChildren();
    this.requestId = null;
  }

  destroy() { this.hide(); }

  answerBox(request) {
    const fieldId = newId("answer");
    const error = h("p", { class: "field-error", id: `${fieldId}-error`, hidden: true });
    const input = h("textarea", {
      id: fieldId, name: "answer", rows: "3", maxlength: "2000", required: true,
      "aria-describedby": `${fieldId}-error`,
    });
    const form = h("form", { class: "card ask-back", novalidate: true, "data-kind": "clarification" },
      h("h2", {}, "The run asks you"),
      h("p", { class: "asked" }, String(request.question || "")),
      h("div", { class: "field" },
        h("label", { for: fieldId }, "Your answer"), input, error),
      h("div", { class: "form-actions" },
        h("button", { type: "submit", class: "primary" }, "Answer and continue")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send({ answer: input.value }, error);
    });
    return form;
  }

  planEditor(request) {
    const briefId = newId("brief");
    const error = h("p", { class: "field-error", role: "alert", hidden: true });
    const brief = h("textarea", { id: briefId, name: "brief", rows: "3", maxlength: "2000" });
    brief.value = String(request.brief || "");
    const list = h("ol", { class: "plan-items" });
    const add = h("button", { type: "button", class: "link-button" }, "Add a sub-question");
    const renumber = () => {
      [...list.children].forEach((item, index) => {
        const label = item.querySelector("label");
        if (label) label.textContent = `Sub-question ${index + 1}`;
      });
      add.disabled = list.children.length >= MAX_SUB_QUESTIONS;
    };
    const item = (value) => {
      const id = newId("subq");
      const input = h("input", { id, type: "text", name: "sub_question", maxlength: "300" });
      input.value = value;
      const remove = h("button", { type: "button", class: "link-button", "aria-label": "Remove this sub-question" }, "Remove");
      const row = h("li", { class: "plan-item" }, h("label", { for: id }, "Sub-question"), input, remove);
      remove.addEventListener("click", () => { row.remove(); renumber(); });
      return row;
    };
    for (const sq of request.sub_questions || []) list.append(item(String(sq.text || "")));
    add.addEventListener("click", () => {
      const row = item("");
      list.append(row);
      renumber();
      row.querySelector("input").focus();
    });
    renumber();
    // the plan's scope, evidence strategy and output format, then the council's votes
    const outline = [
      ["Scope", request.scope], ["Evidence strategy", request.evidence_strategy], ["Output format", request.output_format],
    ].filter(([, text]) => text);
    const council = (request.council || []).map(String);
    const about = outline.length
      ? h("dl", { class: "plan-outline" }, outline.map(([name, text]) => [h("dt", {}, name), h("dd", {}, String(text))]))
      : null;
    const searched = (request.presearch || []).map(String);
    const context = searched.length
      ? h("ul", { class: "presearch", "aria-label": "What the pre-search found on the question's names" },
        searched.map((line) => h("li", {}, line)))
      : null;
    const votes = council.length
      ? h("ul", { class: "council-notes", "aria-label": "The council's decision, votes and revisions" },
        council.map((line) => h("li", {}, line)))
      : null;
    const original = JSON.stringify([brief.value, [...list.querySelectorAll("input")].map((i) => i.value)]);
    const form = h("form", { class: "card ask-back", novalidate: true, "data-kind": "plan" },
      h("h2", {}, "Review the plan"),
      h("p", { class: "help" }, "Approve it, or edit the brief and the sub-questions (1 to 8): the edited plan is what gets researched."),
      about, votes, context,
      h("div", { class: "field" }, h("label", { for: briefId }, "Brief"), brief),
      list, add, error,
      h("div", { class: "form-actions" },
        h("button", { type: "submit", class: "primary", value: "approve" }, "Research this plan"),
        h("button", { type: "button", class: "danger", "data-action": "cancel" }, "Cancel the run")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const texts = [...list.querySelectorAll("input")].map((i) => i.value);
      const changed = JSON.stringify([brief.value, texts]) !== original;
      this.send(changed ? { action: "edit", brief: brief.value, sub_questions: texts } : { action: "approve" }, error);
    });
    form.querySelector("[data-action=cancel]").addEventListener("click", () => this.send({ action: "cancel" }, error));
    return form;
  }

  findingsReview(request) {
    const gapId = newId("gap");
    const error = h("p", { class: "field-error", role: "alert", hidden: true });
    const findings = request.findings || [];
    const list = h("ul", { class: "finding-items" });
    for (const item of findings) {
      const id = newId("finding");
      const keep = h("input", { id, type: "checkbox", name: "keep", value: String(item.id || "") });
      keep.checked = true;
      list.append(h("li", { class: "finding-item" },
        keep,
        h("label", { for: id }, h("span", { class: "finding-id" }, String(item.id || "")), " ", String(item.claim || "")),
        h("blockquote", {}, String(item.quote || "")),
        h("p", { class: "finding-source" }, sourceLink(item.source_url, String(item.source_title || item.source_url || "")))));
    }
    const gap = h("textarea", { id: gapId, name: "gap", rows: "2", maxlength: "300" });
    const form = h("form", { class: "card ask-back", novalidate: true, "data-kind": "findings" },
      h("h2", {}, "Review the findings"),
      h("p", { class: "help" }, `${findings.length} verified finding(s). Untick those to leave out of the report, or name a gap: one more round of research looks for it before the report is written.`),
      list,
      h("div", { class: "field" }, h("label", { for: gapId }, "A gap to research (optional)"), gap),
      error,
      h("div", { class: "form-actions" },
        h("button", { type: "submit", class: "primary" }, "Write the report"),
        h("button", { type: "button", class: "danger", "data-action": "cancel" }, "Cancel the run")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const drop = [...list.querySelectorAll("input[name=keep]")].filter((i) => !i.checked).map((i) => i.value);
      const body = gap.value.trim() ? { action: "gap", gap: gap.value } : drop.length ? { action: "drop" } : { action: "approve" };
      if (drop.length) body.drop = drop;
      this.send(body, error);
    });
    form.querySelector("[data-action=cancel]").addEventListener("click", () => this.send({ action: "cancel" }, error));
    return form;
  }

  reportReview(request) {
    const error = h("p", { class: "field-error", role: "alert", hidden: true });
    const sentences = request.sentences || [];
    const list = h("ol", { class: "sentence-items" });
    for (const item of sentences) {
      const id = newId("sentence");
      const text = h("textarea", { id, name: "sentence", rows: "2", maxlength: "2000", "data-id": String(item.id || "") });
      text.value = String(item.text || "");
      text.dataset.original = text.value;
      const cites = (item.sources || []).length ? ` [${item.sources.join(", ")}]` : "";
      list.append(h("li", { class: "sentence-item" },
        h("label", { for: id }, h("span", { class: "sentence-id" }, String(item.id || "")), ` ${String(item.section || "")}${cites}`),
        text));
    }
    const feedbackId = newId("feedback");
    const feedback = request.rewrite
      ? h("textarea", { id: feedbackId, name: "feedback", rows: "3", maxlength: "2000" })
      : null;
    const form = h("form", { class: "card ask-back", novalidate: true, "data-kind": "report" },
      h("h2", {}, "Review the report"),
      h("p", { class: "asked" }, String(request.title || "")),
      h("p", { class: "help" }, "Approve it, or edit its sentences: each edit is checked against the sources the sentence cites, like the writer's, and removed if they do not support it. Empty a sentence to remove it."),
      list,
      feedback
        ? h("div", { class: "field" }, h("label", { for: feedbackId }, "Or feedback for one rewrite by the writer (optional)"), feedback)
        : h("p", { class: "help no-rewrite" }, "Feedback for a rewrite needs a writer model; this run has none."),
      error,
      h("div", { class: "form-actions" },
        h("button", { type: "submit", class: "primary" }, "Finish the report"),
        h("button", { type: "button", class: "danger", "data-action": "cancel" }, "Cancel the run")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const edits = {};
      for (const text of list.querySelectorAll("textarea")) {
        if (text.value !== text.dataset.original) edits[text.dataset.id] = text.value;
      }
      const edited = Object.keys(edits).length > 0;
      const asked = feedback && feedback.value.trim();
      if (edited && asked) {
        error.textContent = "Either edit sentences or give feedback for a rewrite, not both.";
        error.hidden = false;
        return;
      }
      this.send(asked ? { action: "feedback", feedback: feedback.value }
        : edited ? { action: "edit", sentences: edits } : { action: "approve" }, error);
    });
    form.querySelector("[data-action=cancel]").addEventListener("click", () => this.send({ action: "cancel" }, error));
    return form;
  }

  async send(body, error) {
    error.hidden = true;
    const buttons = [...this.container.querySelectorAll("button")];
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const { data } = await api(`v1/research/${encodeURIComponent(this.jobId)}/input`, { method: "POST", body });
      this.hide();
      announce(body.action === "cancel" ? "The run was cancelled" : "Answer sent: the run goes on");
      if (this.onAnswered) this.onAnswered(data);
    } catch (problem) {
      if (!(problem instanceof ApiError)) throw problem;
      error.textContent = problem.detail || "The answer was refused.";
      error.hidden = false;
      buttons.forEach((b) => { b.disabled = false; });
    }
  }
}
