// The library view (#/library): full-text search of your library (GET /v1/library/search)
// with its filters (domain, recipe, tag, date range), each result with its text, its
// source (a link when it is a web page) and its run (a link to the run's page). The API
// checks the query and the filters; its problem's detail is shown as it is.

import { ApiError, api } from "./api.js";
import { clear, fmtTime, h, sourceLink } from "./dom.js";

const KIND_LABELS = { quote: "Quote", claim: "Claim", report: "Report", document: "Document" };
const FILTERS = ["domain", "recipe", "tag", "since", "until"];

/** The view's elements by id, and how the page shows a problem. */
export class LibraryView {
  constructor({ form, results, empty, problem, showProblem }) {
    this.form = form;
    this.results = results;
    this.empty = empty;
    this.problem = problem;
    this.showProblem = showProblem;
    this.loaded = false;
    this.token = 0;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.search();
    });
  }

  /** Fill the recipe and tag choices once (the service's recipes, your tags). */
  async load() {
    if (this.loaded) return;
    this.loaded = true;
    try {
      const [{ data: recipes }, { data: tags }] = await Promise.all([
        api("v1/recipes"), api("v1/library/tags"),
      ]);
      const select = this.form.elements.namedItem("recipe");
      for (const recipe of recipes.recipes) select.append(h("option", { value: recipe.name }, recipe.title));
      const list = document.getElementById("library-tags");
      for (const item of tags.tags) list.append(h("option", { value: item.tag }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.loaded = false; // try again next time; the search works without them
    }
  }

  async search() {
    const fields = this.form.elements;
    const query = new URLSearchParams({ q: fields.namedItem("q").value.trim() });
    for (const name of FILTERS) {
      const value = fields.namedItem(name).value.trim();
      if (value) query.set(name, value);
    }
    const token = ++this.token;
    this.showProblem(this.problem, null);
    clear(this.results);
    this.empty.hidden = true;
    this.results.setAttribute("aria-busy", "true");
    try {
      const { data } = await api(`v1/library/search?${query}`);
      if (token !== this.token) return;
      for (const hit of data.results) this.results.append(resultItem(hit));
      this.empty.hidden = data.results.length > 0;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (token === this.token) this.showProblem(this.problem, error);
    } finally {
      if (token === this.token) this.results.setAttribute("aria-busy", "false");
    }
  }
}

function resultItem(hit) {
  const run = hit.run || {};
  const source = hit.source;
  const where = run.collection
    ? h("span", { class: "library-run" }, `collection ${run.collection}`)
    : h("a", { class: "library-run", href: `#/runs/${encodeURIComponent(run.run_id)}` },
      run.question || run.run_id);
  return h("li", { class: "library-hit", "data-kind": hit.kind },
    h("p", { class: "library-text" },
      h("span", { class: "badge" }, KIND_LABELS[hit.kind] || hit.kind), " ", hit.text),
    hit.kind === "quote" && hit.claim ? h("p", { class: "library-claim" }, `Claim: ${hit.claim}`) : null,
    source ? h("p", { class: "library-source" },
      sourceLink(source.url, source.title || source.domain || source.url, { class: "library-source-link" }),
      source.fetched_at ? ` · read ${fmtTime(source.fetched_at)}` : "") : null,
    h("p", { class: "library-meta" }, where,
      run.finished_at ? ` · ${fmtTime(run.finished_at)}` : "",
      run.tags && run.tags.length ? ` · ${run.tags.join(", ")}` : ""));
}

