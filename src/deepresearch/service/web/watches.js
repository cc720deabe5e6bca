// The watches view (#/watches, issue 25, docs/watches.md): your watches (GET /v1/watches)
// with their question, schedule, state, next due time and last run's one-line summary; a
// form to add one (POST /v1/watches, every or cron); pause, resume, run now and remove;
// and a watch's change reports: the last one as the API renders it (GET .../report, as
// text) and each run's summary linked to the run's page. The API checks every input; its
// problem's detail is shown as it is.

import { ApiError, api, apiUrl, authHeaders, readProblem } from "./api.js";
import { clear, fmtTime, h } from "./dom.js";

/** The view's elements by id, and how the page shows a problem. */
export class WatchesView {
  constructor({ form, list, empty, problem, detail, showProblem }) {
    Object.assign(this, { form, list, empty, problem, detail, showProblem });
    this.token = 0;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.add();
    });
  }

  async load() {
    const token = ++this.token;
    this.list.setAttribute("aria-busy", "true");
    try {
      const { data } = await api("v1/watches");
      if (token !== this.token) return;
      const shown = await Promise.all(data.map((w) => this.withRuns(w)));
      clear(this.list);
      for (const watch of shown) this.list.append(this.item(watch));
      this.empty.hidden = data.length > 0;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (token === this.token) this.showProblem(this.problem, error);
    } finally {
      if (token === this.token) this.list.setAttribute("aria-busy", "false");
    }
  }

  /** The watch with its runs (GET /v1/watches/{id}), for the last run's summary. */
  async withRuns(watch) {
    const { data } = await api(`v1/watches/${encodeURIComponent(watch.id)}`);
    return data;
  }

  async add() {
    const fields = this.form.elements;
    const value = (name) => fields.namedItem(name).value.trim();
    const body = { question: value("question") };
    if (fields.namedItem("kind").value === "cron") body.cron = value("schedule");
    else body.every = value("schedule");
    this.showProblem(this.problem, null);
    try {
      await api("v1/watches", { method: "POST", body });
      fields.namedItem("question").value = "";
      await this.load();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.showProblem(this.problem, error);
    }
  }

  async act(watch, action) {
    const path = `v1/watches/${encodeURIComponent(watch.id)}`;
    this.showProblem(this.problem, null);
    try {
      if (action === "remove") await api(path, { method: "DELETE" });
      else await api(`${path}/${action}`, { method: "POST" });
      if (action === "remove" && this.detail.dataset.watch === watch.id) this.closeReports();
      await this.load();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.showProblem(this.problem, error);
    }
  }

  closeReports() {
    clear(this.detail);
    this.detail.hidden = true;
    delete this.detail.dataset.watch;
  }

  /** The watch's change reports: the last one as the API renders it, every run's line. */
  async reports(watch) {
    this.detail.dataset.watch = watch.id;
    clear(this.detail);
    this.detail.hidden = false;
    this.detail.append(h("h2", { tabindex: "-1" }, `Change reports: ${watch.question}`));
    const response = await fetch(apiUrl(`v1/watches/${encodeURIComponent(watch.id)}/report?format=md`), {
      headers: authHeaders(), cache: "no-store", credentials: "omit",
    });
    if (response.ok) {
      this.detail.append(h("pre", { class: "watch-report" }, await response.text()));
    } else {
      const problem = await readProblem(response);
      this.detail.append(h("p", { class: "watch-none" }, new ApiError(response.status, problem).detail));
    }
    const runs = h("ul", { class: "watch-runs" });
    for (const run of watch.runs || []) {
      runs.append(h("li", {},
        h("a", { href: `#/runs/${encodeURIComponent(run.job_id)}` }, fmtTime(run.due_at)),
        ` · ${run.summary || run.status}`,
        run.webhook ? ` · webhook ${run.webhook.status}${run.webhook.last_error && run.webhook.status !== "delivered" ? ` (${run.webhook.last_error})` : ""}` : ""));
    }
    this.detail.append(runs);
    this.detail.querySelector("h2").focus();
  }

  item(watch) {
    const last = (watch.runs || []).find((run) => run.summary);
    const button = (label, action, extra = {}) => {
      const b = h("button", { type: "button", "data-action": action, ...extra }, label);
      b.addEventListener("click", () => (action === "reports" ? this.reports(watch) : this.act(watch, action)));
      return b;
    };
    const paused = watch.state === "paused";
    return h("li", { class: "watch-item", "data-watch": watch.id, "data-state": watch.state },
      h("p", { class: "watch-question" }, watch.question),
      h("p", { class: "watch-meta" },
        `${watch.schedule} · ${paused ? "paused" : "active"}`,
        paused ? "" : ` · next ${fmtTime(watch.next_due)}`,
        // a due time the key's submission rate limit holds back (docs/watches.md)
        !paused && watch.deferred_until ? ` · deferred to ${fmtTime(watch.deferred_until)} (rate limit)` : ""),
      h("p", { class: "watch-summary" }, last ? last.summary : "No change report yet."),
      h("div", { class: "form-actions" },
        paused ? button("Resume", "resume") : button("Pause", "pause"),
        button("Run now", "run-now", paused ? { disabled: "" } : {}),
        button("Change reports", "reports"),
        button("Remove", "remove")));
  }
}
