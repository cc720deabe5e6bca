// A finished research report's thread: the turns (the first run and its follow-ups, from
// the job's `thread`) and a box to ask a follow-up, which becomes a job of its own
// (POST v1/research/{id}/followups). Text from the API goes into the page as text only.

import { h, newId, text } from "./dom.js";

/** Report kinds that are a reply to the user, not a report: nothing to follow up. */
const REPLIES = new Set(["chitchat", "refusal", "clarification"]);

/**
 * The thread section for `job` (its view, with `thread`) and its `report`, or null when
 * there is nothing to follow up. `ask(question)` resolves to the new job's id.
 */
export function threadBox(job, report, { ask }) {
  if (!Array.isArray(job.thread) || (report && REPLIES.has(report.kind))) return null;
  const box = h("section", { class: "thread card", "aria-labelledby": "thread-heading", "data-el": "thread" },
    h("h3", { id: "thread-heading" }, "Follow-up questions"));
  const turns = job.thread.filter((turn) => turn && typeof turn.id === "string");
  if (turns.length > 1) {
    box.append(h("ol", { class: "turns", "data-el": "turns" },
      turns.map((turn) => h("li", { "data-turn": String(turn.turn) },
        turn.id === job.id
          ? h("span", { "aria-current": "page" }, String(turn.question || ""))
          : h("a", { href: `#/runs/${encodeURIComponent(turn.id)}` }, String(turn.question || "")),
        turn.topic_shift ? h("span", { class: "tag" }, " (new topic: researched afresh)") : null))));
  }
  const followup = report && report.followup && typeof report.followup === "object" ? report.followup : null;
  if (followup) {
    box.append(h("p", { class: "help", "data-el": "reuse" }, followup.topic_shift
      ? "This follow-up is on a new topic: it was researched afresh, nothing reused."
      : `This follow-up reused ${Number(followup.reused_sources) || 0} page(s) and ${Number(followup.reused_evidence) || 0} verified quote(s) from earlier turns.`));
  }
  const id = newId("followup");
  const input = h("input", { id, type: "text", name: "question", maxlength: "4000", required: true, autocomplete: "off", "data-el": "followup-question" });
  const status = h("p", { class: "help", role: "status", "data-el": "followup-status" },
    "Pages already read and verified quotes are reused; a question on another topic starts afresh.");
  const button = h("button", { type: "submit", "data-el": "followup-submit" }, "Ask");
  const form = h("form", { class: "followup", "data-el": "followup-form", novalidate: true },
    h("label", { for: id }, "Ask a follow-up on this report"),
    h("div", { class: "row" }, input, button),
    status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const question = input.value.trim();
    if (!question) {
      input.setAttribute("aria-invalid", "true");
      text(status, "Write a follow-up question first.");
      input.focus();
      return;
    }
    input.removeAttribute("aria-invalid");
    button.disabled = true;
    text(status, "Starting the follow-up…");
    try {
      const newJob = await ask(question);
      location.hash = `#/runs/${encodeURIComponent(newJob)}`;
    } catch (error) {
      text(status, `The follow-up was refused: ${error && error.detail ? error.detail : "try again"}`);
    } finally {
      button.disabled = false;
    }
  });
  box.append(form);
  return box;
}
