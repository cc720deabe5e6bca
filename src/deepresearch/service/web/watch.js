// The live view of a run, folded from its events and nothing else (docs/events.md): stage
// timeline, sub-questions, sources as they are found, evidence, tokens, elapsed time, and
// every event in a log. Updates are incremental (keyed rows), so focus and scrolling stay.
// An event's data is read through events.js only.

import {
  announce, fmtDuration, fmtInt, fmtScore, h, shortUrl, text,
} from "./dom.js";
import { eventData } from "./events.js";

const STAGE_NAMES = {
  followup: "Follow-up",
  intake: "Intake",
  plan: "Plan",
  research: "Research",
  gate: "Quality gate",
  reflect: "Reflect",
  write: "Write",
  abort: "Abort",
  respond: "Respond",
  audit: "Audit",
};
const STEP_EVENTS_SKIPPED = new Set(["model_call", "warning"]);
const TIER_NAMES = {
  PRIMARY_SOURCE: "Primary",
  AUTHORITATIVE: "Authoritative",
  SECONDARY: "Secondary",
  UNVERIFIED: "Unverified",
  FLAGGED: "Flagged",
};
// a URL read for one sub-question and dropped for another shows as read
const SOURCE_RANK = { dropped: 1, chosen: 2, failed: 3, read: 4 };
const SOURCE_STATE_LABELS = { dropped: "Dropped", chosen: "To read", failed: "Failed", read: "Read" };
const SUBQ_LABELS = {
  planned: "Planned", queued: "Queued", researching: "Researching", done: "Done",
  failed: "Failed", timed_out: "Timed out",
};
export const TERMINAL_EVENT_STATUS = {
  run_completed: "COMPLETED", run_failed: "FAILED", run_cancelled: "CANCELLED",
  run_expired: "EXPIRED",
};

export function stageName(stage) {
  if (!stage) return "";
  return STAGE_NAMES[stage] || stage.charAt(0).toUpperCase() + stage.slice(1).replaceAll("_", " ");
}

export function tierName(tier) {
  return TIER_NAMES[tier] || String(tier || "");
}

function str(value) {
  return typeof value === "string" ? value : value === null || value === undefined ? "" : String(value);
}

function parseTs(value) {
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}

export class RunWatch {
  /**
   * @param {HTMLElement} root    where the panel goes
   * @param {object} job          the job resource (question, status)
   * @param {object} hooks        onCancel(): Promise, onReconnect()
   */
  constructor(root, job, hooks = {}) {
    this.root = root;
    this.hooks = hooks;
    this.status = job.status;
    this.steps = [];
    this.subqs = new Map();
    this.sources = new Map();
    this.warnings = [];
    this.counts = {
      events: 0, read: 0, failed: 0, evidence: 0, calls: 0, input: 0, output: 0,
    };
    this.wave = 0;
    this.startedAt = null; // event time of run_started
    this.endedAt = null; // event time of the terminal event
    this.skew = null; // client clock minus server clock, from event times
    this.message = "";
    this.build();
    this.tick = setInterval(() => this.renderElapsed(), 1000);
    this.setStatus(job.status);
  }

  destroy() {
    clearInterval(this.tick);
  }

  build() {
    const el = (name) => this.root.querySelector(`[data-el="${name}"]`);
    const stat = (name, label) => h(
      "div", { class: "stat", "data-stat": name },
      h("dt", {}, label), h("dd", { "data-el": `stat-${name}` }, "–"),
    );
    this.cancelButton = h("button", {
      type: "button", class: "danger", "data-el": "cancel", onclick: () => this.cancel(),
    }, "Cancel run");
    this.retryButton = h("button", {
      type: "button", class: "link-button", hidden: true,
      onclick: () => this.hooks.onReconnect && this.hooks.onReconnect(),
    }, "Reconnect now");
    const panel = h(
      "details", { class: "watch-panel card", open: true, "data-el": "panel" },
      h("summary", {}, h("h2", { id: "watch-heading" }, "Live progress"), h("span", { class: "summary-hint", "data-el": "summary-hint" })),
      h(
        "div", { class: "watch-head" },
        h("p", { class: "connection", "data-el": "connection", "data-state": "idle" },
          h("span", { class: "dot", "aria-hidden": "true" }),
          h("span", { "data-el": "connection-text" }, "Connecting…"),
          this.retryButton),
        this.cancelButton,
      ),
      h("p", { class: "current", "data-el": "current" }),
      h(
        "dl", { class: "stats" },
        stat("elapsed", "Elapsed"),
        stat("stage", "Stage"),
        stat("sources", "Sources read"),
        stat("evidence", "Verified quotes"),
        stat("calls", "Model calls"),
        stat("tokens", "Tokens in / out"),
      ),
      h(
        "div", { class: "watch-grid" },
        h("section", { "aria-labelledby": "stages-heading" },
          h("h3", { id: "stages-heading" }, "Stages"),
          h("ol", { class: "timeline", "data-el": "timeline" }),
          h("p", { class: "empty", "data-el": "timeline-empty" }, "Waiting for the run to start…")),
        h("section", { "aria-labelledby": "subq-heading" },
          h("h3", { id: "subq-heading" }, "Sub-questions"),
          h("ol", { class: "subqs", "data-el": "subqs" }),
          h("p", { class: "empty", "data-el": "subqs-empty" }, "None planned yet.")),
      ),
      h("section", { "aria-labelledby": "live-sources-heading" },
        h("h3", { id: "live-sources-heading" }, "Sources ", h("span", { class: "count", "data-el": "sources-count" })),
        h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-labelledby": "live-sources-heading", "data-el": "sources-wrap", hidden: true },
          h("table", { class: "live-sources" },
            h("thead", {}, h("tr", {},
              h("th", { scope: "col" }, "Source"),
              h("th", { scope: "col" }, "Domain"),
              h("th", { scope: "col" }, "Tier"),
              h("th", { scope: "col", class: "num" }, "Score"),
              h("th", { scope: "col" }, "Status"))),
            h("tbody", { "data-el": "sources" }))),
        h("p", { class: "empty", "data-el": "sources-empty" }, "No sources ranked yet."),
        h("details", { class: "dropped", "data-el": "dropped-box", hidden: true },
          h("summary", { "data-el": "dropped-summary" }, "Dropped"),
          h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": "Dropped sources" },
            h("table", { class: "live-sources" },
              h("thead", {}, h("tr", {},
                h("th", { scope: "col" }, "Source"),
                h("th", { scope: "col" }, "Domain"),
                h("th", { scope: "col" }, "Tier"),
                h("th", { scope: "col", class: "num" }, "Score"),
                h("th", { scope: "col" }, "Why"))),
              h("tbody", { "data-el": "dropped" }))))),
      h("section", { class: "warnings", "data-el": "warnings-box", hidden: true, "aria-labelledby": "warnings-heading" },
        h("h3", { id: "warnings-heading" }, "Warnings"),
        h("ul", { "data-el": "warnings" })),
      h("details", { class: "log" },
        h("summary", {}, "All events ", h("span", { class: "count", "data-el": "log-count" }, "(0)")),
        h("ol", { class: "event-log", "data-el": "log" })),
    );
    this.root.replaceChildren(panel);
    this.el = el;
  }

  // ---- connection and job state -------------------------------------------------------

  connection(state, info = {}) {
    const box = this.el("connection");
    box.dataset.state = state;
    box.dataset.connections = String(info.stats ? info.stats.connections : 0);
    box.dataset.drops = String(info.stats ? info.stats.drops : 0);
    box.dataset.duplicates = String(info.stats ? info.stats.duplicates : 0);
    box.dataset.gaps = String(info.stats ? info.stats.gaps : 0);
    let label = "";
    this.retryButton.hidden = true;
    if (state === "connecting") label = info.attempt > 1 ? "Reconnecting…" : "Connecting…";
    else if (state === "live") label = "Live";
    else if (state === "waiting") {
      const seconds = Math.max(1, Math.round((info.delay || 0) / 1000));
      label = navigator.onLine === false
        ? `Offline: retrying in ${seconds} s`
        : `Connection lost: retrying in ${seconds} s`;
      this.retryButton.hidden = false;
      if (this.lastConnectionState !== "waiting") announce("Connection lost; reconnecting");
    } else if (state === "auth") label = "Waiting for an API key";
    else if (state === "ended") label = this.endedAt ? "Finished" : "Stream closed";
    else if (state === "failed") label = info.error ? `Cannot follow this run: ${info.error.detail}` : "Cannot follow this run";
    if (state === "live" && this.lastConnectionState === "waiting") announce("Reconnected");
    this.lastConnectionState = state;
    text(this.el("connection-text"), label);
  }

  setStatus(status) {
    this.status = status;
    const active = status === "QUEUED" || status === "RUNNING";
    this.cancelButton.hidden = !active;
    if (status === "QUEUED" && !this.steps.length) text(this.el("timeline-empty"), "Queued: waiting for a worker…");
    if (!active) {
      text(this.el("timeline-empty"), "The run did not start.");
      text(this.el("subqs-empty"), "None planned.");
      text(this.el("sources-empty"), "No sources ranked.");
    }
    this.renderStats();
  }

  /** Collapse the panel (a finished run: the report is the thing to read). */
  collapse(hint) {
    this.el("panel").open = false;
    text(this.root.querySelector("#watch-heading"), "How the run went");
    text(this.el("summary-hint"), hint || "");
  }

  async cancel() {
    if (!this.hooks.onCancel) return;
    this.cancelButton.disabled = true;
    text(this.cancelButton, "Cancelling…");
    try {
      await this.hooks.onCancel();
      announce("Cancellation requested");
    } catch {
      this.cancelButton.disabled = false;
      text(this.cancelButton, "Cancel run");
    }
  }

  // ---- folding events -----------------------------------------------------------------

  apply(event, seq) {
    const type = str(event.type);
    const info = eventData(event);
    const ts = parseTs(event.ts);
    if (ts !== null) {
      const skew = Date.now() - ts;
      this.skew = this.skew === null ? skew : Math.min(this.skew, skew);
    }
    this.counts.events += 1;
    if (event.message) this.message = str(event.message);
    this.appendLog(event, seq, ts);

    switch (type) {
      case "run_started":
      case "run_resumed":
        if (this.startedAt === null && ts !== null) this.startedAt = ts;
        this.setStatus("RUNNING");
        break;
      case "plan_ready":
        for (const item of info.units) this.subq(item, "planned");
        break;
      case "reflection":
        for (const item of info.units) this.subq(item, "queued");
        break;
      case "wave_started":
        this.wave = info.wave || this.wave;
        for (const item of info.units) this.subq(item, "researching");
        break;
      case "search_completed": {
        const sq = this.subqs.get(info.subq);
        if (sq) sq.found = info.kept;
        this.renderSubq(info.subq);
        break;
      }
      case "sources_ranked": {
        const sq = this.subqs.get(info.subq);
        if (sq) {
          sq.reading = info.chosen;
          sq.ranked = info.candidates.length;
          this.renderSubq(sq.id);
        }
        for (const c of info.candidates) {
          this.source(c.url, {
            domain: c.domain, tier: c.tier, score: c.score, state: c.read ? "chosen" : "dropped", reason: c.reason,
          });
        }
        break;
      }
      case "source_fetched":
        this.counts.read += 1;
        this.source(info.url, { domain: info.domain, title: info.title, state: "read" });
        break;
      case "source_failed":
        this.counts.failed += 1;
        this.source(info.url, { domain: info.domain, state: "failed", reason: info.reason });
        break;
      case "evidence_added": {
        this.counts.evidence += info.count;
        const sq = this.subqs.get(info.subq);
        if (sq) {
          sq.evidence += info.count;
          // the unit's own status: a failed or timed-out unit says so, with its reason
          sq.status = info.status === "completed" ? "done" : info.status;
          sq.failure = info.reason;
          sq.seconds = info.seconds;
          this.renderSubq(sq.id);
        }
        break;
      }
      case "gate_evaluated":
        for (const id of info.weak) {
          const sq = this.subqs.get(id);
          if (sq) {
            sq.weak = true;
            this.renderSubq(sq.id);
          }
        }
        break;
      case "model_call":
        this.counts.calls += 1;
        this.counts.input += info.input;
        this.counts.output += info.output;
        if (info.cost !== null) this.counts.cost = (this.counts.cost || 0) + info.cost;
        break;
      case "warning":
      case "budget_exhausted": // which budget ended the run: no new work after it
        this.warnings.push(str(event.message));
        this.renderWarnings();
        break;
      case "run_completed":
        // the run's own totals are the final word
        if (info.input !== null) this.counts.input = info.input;
        if (info.output !== null) this.counts.output = info.output;
        if (info.cost !== null) this.counts.cost = info.cost;
        break;
      default:
        break;
    }
    this.step(event, type, ts);
    if (TERMINAL_EVENT_STATUS[type]) {
      this.endedAt = ts !== null ? ts : Date.now() - (this.skew || 0);
      this.setStatus(TERMINAL_EVENT_STATUS[type]);
      for (const sq of this.subqs.values()) {
        if (sq.status === "researching" || sq.status === "queued" || sq.status === "planned") {
          sq.status = type === "run_completed" ? sq.status : "stopped";
          this.renderSubq(sq.id);
        }
      }
    }
    this.renderStats();
  }

  step(event, type, ts) {
    const stage = str(event.stage);
    const last = this.steps[this.steps.length - 1];
    if (TERMINAL_EVENT_STATUS[type]) {
      if (last && last.status === "active") {
        last.status = type === "run_completed" ? "done" : type === "run_failed" ? "failed" : "stopped";
        last.ended = ts;
        this.renderStep(last);
      }
      return;
    }
    if (!stage || STEP_EVENTS_SKIPPED.has(type)) return;
    let current = last;
    const reenter = last && last.stage === stage && last.status !== "active" && type === "stage_started";
    if (!last || last.stage !== stage || reenter) {
      if (last && last.status === "active") {
        last.status = "done";
        last.ended = ts;
        this.renderStep(last);
      }
      current = {
        index: this.steps.length, stage, wave: stage === "research" ? this.wave : 0,
        status: "active", started: ts, ended: null, message: "",
      };
      this.steps.push(current);
      announce(`Stage: ${stageName(stage)}`);
    }
    if (type === "wave_started" && stage === "research") current.wave = this.wave;
    if (event.message) current.message = str(event.message);
    if (type === "stage_completed") {
      current.status = "done";
      current.ended = ts;
    }
    this.renderStep(current);
  }

  subq(item, status) {
    const id = item.id;
    if (!id) return;
    let sq = this.subqs.get(id);
    if (!sq) {
      sq = {
        id, text: item.text, status, found: null, ranked: null, reading: null, evidence: 0, weak: false,
        failure: "", seconds: null,
      };
      this.subqs.set(id, sq);
    } else {
      if (item.text) sq.text = item.text;
      sq.status = status;
    }
    this.renderSubq(id);
  }

  source(url, update) {
    if (!url) return;
    let row = this.sources.get(url);
    if (!row) {
      row = { url, domain: "", title: "", tier: "", score: null, state: "dropped", reason: "", node: null };
      this.sources.set(url, row);
      row.state = update.state;
    } else if ((SOURCE_RANK[update.state] || 0) >= (SOURCE_RANK[row.state] || 0)) {
      row.state = update.state;
    }
    if (update.domain) row.domain = update.domain;
    if (update.title) row.title = update.title;
    if (update.tier) row.tier = update.tier;
    if (typeof update.score === "number") row.score = row.score === null ? update.score : Math.max(row.score, update.score);
    if (update.reason && (update.state === row.state || !row.reason)) row.reason = update.reason;
    this.renderSource(row);
  }

  // ---- rendering ----------------------------------------------------------------------

  appendLog(event, seq, ts) {
    const time = ts === null ? "" : new Date(ts).toLocaleTimeString(undefined, { hour12: false });
    const stage = str(event.stage);
    let message = str(event.message) || str(event.type);
    if (event.type === "model_call") {
      const call = eventData(event);
      message += ` · ${fmtInt(call.input)} in / ${fmtInt(call.output)} out`;
    }
    this.el("log").append(h(
      "li", { "data-seq": seq, "data-type": str(event.type) },
      h("span", { class: "seq" }, `#${seq}`), " ",
      h("time", { datetime: str(event.ts) }, time), " ",
      stage ? h("span", { class: "log-stage" }, stage) : null, stage ? " " : null,
      h("span", { class: "log-type" }, str(event.type)), " ",
      h("span", { class: "log-message" }, message),
    ));
    text(this.el("log-count"), `(${this.counts.events})`);
  }

  renderStep(step) {
    if (!step.node) {
      step.node = h("li", { "data-stage": step.stage },
        h("span", { class: "step-mark", "aria-hidden": "true" }),
        h("span", { class: "step-body" },
          h("span", { class: "step-name" }),
          h("span", { class: "visually-hidden step-status" }),
          h("span", { class: "step-time" }),
          h("span", { class: "step-message" })));
      this.el("timeline").append(step.node);
      this.el("timeline-empty").hidden = true;
    }
    const node = step.node;
    node.className = `step step-${step.status}`;
    node.dataset.status = step.status;
    if (step.status === "active") node.setAttribute("aria-current", "step");
    else node.removeAttribute("aria-current");
    const name = stageName(step.stage) + (step.wave ? ` · wave ${step.wave}` : "");
    text(node.querySelector(".step-name"), name);
    text(node.querySelector(".step-status"), ` (${step.status === "active" ? "in progress" : step.status})`);
    const took = step.started !== null && step.ended !== null ? fmtDuration(step.ended - step.started) : "";
    text(node.querySelector(".step-time"), took);
    text(node.querySelector(".step-message"), step.message);
  }

  renderSubq(id) {
    const sq = this.subqs.get(id);
    if (!sq) return;
    if (!sq.node) {
      sq.node = h("li", { "data-subq": id },
        h("span", { class: "subq-id" }, id),
        h("span", { class: "subq-text" }),
        h("span", { class: "pill subq-status" }),
        h("span", { class: "subq-detail" }));
      this.el("subqs").append(sq.node);
      this.el("subqs-empty").hidden = true;
    }
    text(sq.node.querySelector(".subq-text"), sq.text);
    const status = sq.node.querySelector(".subq-status");
    status.className = `pill subq-status subq-${sq.status}`;
    text(status, SUBQ_LABELS[sq.status] || (sq.status === "stopped" ? "Stopped" : sq.status));
    sq.node.dataset.status = sq.status;
    const parts = [];
    if (sq.found !== null) parts.push(`${sq.found} results`);
    if (sq.ranked !== null) parts.push(`reading ${sq.reading} of ${sq.ranked}`);
    if (sq.evidence || sq.status === "done") parts.push(`${sq.evidence} verified quotes`);
    if (sq.failure) parts.push(sq.failure);
    if (sq.seconds !== null) parts.push(`unit ran ${sq.seconds.toFixed(1)} s`);
    if (sq.weak) parts.push("weak: too little evidence");
    text(sq.node.querySelector(".subq-detail"), parts.join(" · "));
  }

  renderSource(row) {
    const dropped = row.state === "dropped";
    const body = this.el(dropped ? "dropped" : "sources");
    if (!row.node) {
      row.node = h("tr", { "data-url": row.url },
        h("td", { class: "src-title" }), h("td", { class: "src-domain" }),
        h("td", {}, h("span", { class: "src-tier" })), h("td", { class: "num src-score" }),
        h("td", { class: "src-state" }));
    }
    if (row.node.parentNode !== body) body.append(row.node);
    row.node.dataset.state = row.state;
    // not links: only a report's cited sources are linked
    text(row.node.querySelector(".src-title"), row.title || shortUrl(row.url));
    row.node.querySelector(".src-title").title = row.url;
    text(row.node.querySelector(".src-domain"), row.domain);
    const tier = row.node.querySelector(".src-tier");
    tier.className = `src-tier tier tier-${row.tier.toLowerCase()}`;
    tier.hidden = !row.tier;
    text(tier, tierName(row.tier));
    text(row.node.querySelector(".src-score"), fmtScore(row.score));
    const state = row.node.querySelector(".src-state");
    if (dropped) {
      text(state, row.reason);
    } else {
      state.className = `src-state state-${row.state}`;
      text(state, SOURCE_STATE_LABELS[row.state] + (row.state === "failed" && row.reason ? `: ${row.reason}` : ""));
    }
    this.renderSourceCounts();
  }

  renderSourceCounts() {
    let shown = 0;
    let dropped = 0;
    for (const row of this.sources.values()) {
      if (row.state === "dropped") dropped += 1;
      else shown += 1;
    }
    text(this.el("sources-count"), `(${shown} chosen, ${dropped} dropped)`);
    this.el("sources-empty").hidden = shown + dropped > 0;
    this.el("sources-wrap").hidden = shown === 0;
    this.el("dropped-box").hidden = dropped === 0;
    text(this.el("dropped-summary"), `Dropped (${dropped}): scored below the threshold or beyond the sources per sub-question`);
  }

  renderWarnings() {
    const box = this.el("warnings-box");
    box.hidden = this.warnings.length === 0;
    const ul = this.el("warnings");
    while (ul.children.length < this.warnings.length) {
      ul.append(h("li", {}, this.warnings[ul.children.length]));
    }
  }

  renderStats() {
    const c = this.counts;
    text(this.el("stat-sources"), c.failed ? `${fmtInt(c.read)} (${fmtInt(c.failed)} failed)` : fmtInt(c.read));
    text(this.el("stat-evidence"), fmtInt(c.evidence));
    text(this.el("stat-calls"), fmtInt(c.calls));
    text(this.el("stat-tokens"), `${fmtInt(c.input)} / ${fmtInt(c.output)}`);
    const last = this.steps[this.steps.length - 1];
    const ended = { COMPLETED: "Done", FAILED: "Failed", CANCELLED: "Cancelled", EXPIRED: "Expired" };
    text(this.el("stat-stage"), ended[this.status]
      || (last ? stageName(last.stage) : this.status === "QUEUED" ? "Queued" : "Starting"));
    text(this.el("current"), this.message);
    this.renderElapsed();
  }

  renderElapsed() {
    const el = this.el && this.el("stat-elapsed");
    if (!el) return;
    if (this.startedAt === null) {
      text(el, "–");
      return;
    }
    const end = this.endedAt !== null ? this.endedAt : Date.now() - (this.skew || 0);
    text(el, fmtDuration(end - this.startedAt));
    if (this.endedAt !== null) clearInterval(this.tick);
  }
}
