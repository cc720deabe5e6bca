// The page: Ask (#/), a run (#/runs/{id}: live view, then the report), History
// (#/history), the Library (#/library) and Watches (#/watches). Plain ES modules, no build step, nothing loaded from anywhere but this
// service; every piece of text from the API goes into the page as text.

import { ApiError, api, apiUrl, auth, authHeaders, idempotencyKey, readProblem } from "./api.js";
import {
  announce, clear, fmtTime, h, statusBadge, text,
} from "./dom.js";
import { ReportView } from "./report.js";
import { EventStream } from "./sse.js";
import { threadBox } from "./thread.js";
import { InputPanel } from "./input.js";
import { eventData } from "./events.js";
import { RunWatch } from "./watch.js";
import { LibraryView } from "./library.js";
import { WatchesView } from "./watches.js";

const ACTIVE = new Set(["QUEUED", "RUNNING"]);
const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED", "EXPIRED"]);
const MODEL_PATTERN = /^(none|[a-z0-9_-]+:[\w./:@-]+)$/;
const $ = (id) => document.getElementById(id);

const views = ["ask", "run", "history", "library", "watches", "key"];
let currentView = "ask";
let run = null; // the open run: {id, stream, watch, report, token}
let flash = ""; // a note for the next run view ("you already had a run")
let navigated = false;
let library = null; // the library view, made at start
let watches = null; // the watches view, made at start

// ---- views and routing ------------------------------------------------------------------

function showView(name, { focus = navigated } = {}) {
  for (const view of views) $(`view-${view}`).hidden = view !== name;
  if (name !== "key") currentView = name;
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.dataset.nav === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (focus) {
    const heading = $(`view-${name}`).querySelector("h1");
    if (heading) heading.focus({ preventScroll: false });
  }
}

function route() {
  const hash = location.hash || "#/";
  const match = /^#\/runs\/([^/?#]+)$/.exec(hash);
  if (!match || !run || run.id !== decodeURIComponent(match[1])) closeRun();
  if (match) {
    openRun(decodeURIComponent(match[1]));
  } else if (hash === "#/history") {
    document.title = "History · deepresearch";
    showView("history");
    loadHistory();
  } else if (hash === "#/library") {
    document.title = "Library · deepresearch";
    showView("library");
    library.load();
  } else if (hash === "#/watches") {
    document.title = "Watches · deepresearch";
    showView("watches");
    watches.load();
  } else {
    document.title = "deepresearch";
    showView("ask");
    loadRecipes();
    loadActiveBanner();
  }
  navigated = true;
}

// ---- the API key ------------------------------------------------------------------------

let keyWaiters = [];

auth.onUnauthorized = (error, sentKey) => new Promise((resolve) => {
  if (auth.current() && auth.current() !== sentKey) {
    resolve(); // a new key was entered while this request was out: retry with it
    return;
  }
  keyWaiters.push(resolve);
  if (!$("view-key").hidden) return;
  const hadKey = Boolean(sentKey);
  if (hadKey) auth.clear();
  const message = $("key-error");
  message.hidden = !hadKey;
  text(message, hadKey ? error.detail : "");
  $("key-input").setAttribute("aria-invalid", hadKey ? "true" : "false");
  showView("key", { focus: false });
  $("key-input").focus();
});

function submitKey(event) {
  event.preventDefault();
  const input = $("key-input");
  const key = input.value.trim();
  const message = $("key-error");
  if (!key) {
    message.hidden = false;
    text(message, "Enter the API key.");
    input.setAttribute("aria-invalid", "true");
    input.focus();
    return;
  }
  auth.set(key);
  input.value = "";
  input.setAttribute("aria-invalid", "false");
  message.hidden = true;
  showView(currentView, { focus: false });
  const waiters = keyWaiters;
  keyWaiters = [];
  for (const resolve of waiters) resolve();
}

function renderKeyStatus() {
  $("key-status").hidden = !auth.current();
}

// ---- Ask --------------------------------------------------------------------------------

function fieldError(id, message) {
  const input = $(id);
  const box = $(`${id}-error`);
  input.setAttribute("aria-invalid", message ? "true" : "false");
  box.hidden = !message;
  text(box, message || "");
  return !message;
}

function showProblem(box, error) {
  clear(box);
  if (!error) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const heading = error.status === 0
    ? "The service cannot be reached."
    : `The service refused this (${error.status}${error.title ? ` ${error.title}` : ""}).`;
  box.append(h("p", { class: "problem-title" }, heading), h("p", { class: "problem-detail" }, error.detail));
  if (error.hint) box.append(h("p", { class: "problem-hint" }, error.hint));
  if (error.errors && error.errors.length) {
    box.append(h("ul", {}, error.errors.map((item) => h("li", {},
      item && item.where ? `${item.where}: ` : "", String(item && item.problem ? item.problem : "")))));
  }
}

async function submitQuestion(event) {
  event.preventDefault();
  const question = $("question").value.trim();
  const model = $("model").value.trim();
  let ok = fieldError("question", question ? "" : "Enter a question to research.");
  ok = fieldError("model", !model || MODEL_PATTERN.test(model) ? ""
    : "Write the model as provider:model (for example openai:gpt-4.1-mini), or none.") && ok;
  const budgets = {};
  for (const [name, whole] of [["max_tokens", true], ["max_cost", false], ["max_time", false]]) {
    const raw = $(name).value.trim();
    const value = Number(raw);
    const bad = raw && (!Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value)));
    ok = fieldError(name, bad ? (whole ? "Enter a whole number above 0, or leave it empty."
      : "Enter a number above 0, or leave it empty.") : "") && ok;
    if (raw && !bad) budgets[name] = value;
  }
  if (!ok) {
    showProblem($("ask-problem"), null);
    document.querySelector("#ask-form [aria-invalid=true]").focus();
    return;
  }
  const options = {};
  for (const name of ["depth", "search"]) {
    const value = $(name).value;
    if (value) options[name] = value;
  }
  if (model) options.model = model;
  // the council is sent only when chosen here: otherwise the server's default (on at deep)
  if ($("council").dataset.touched) options.council = $("council").checked;
  if ($("evaluate").checked) options.evaluate = true;
  Object.assign(options, budgets);
  if ($("review-plan").checked) options.review_plan = true;
  if ($("review-findings").checked) options.review_findings = true;
  if ($("review-report").checked) options.review_report = true;
  // each turns off what is on by default (the server's setting otherwise)
  if ($("no-presearch").checked) options.presearch = false;
  if ($("no-library").checked) options.use_library = false;
  if ($("no-images").checked) options.images = false;
  const body = { question, options };
  if ($("recipe").value) body.recipe = $("recipe").value;
  const button = $("ask-submit");
  button.disabled = true;
  text(button, "Starting…");
  showProblem($("ask-problem"), null);
  try {
    const { data } = await api("v1/research", {
      method: "POST", body, headers: { "Idempotency-Key": idempotencyKey() },
    });
    if (data.attached) flash = "You already had a run in progress, so this is that run (one active run per key).";
    else if (data.replayed) flash = "This request had already been submitted; this is its run.";
    $("question").value = "";
    location.hash = `#/runs/${encodeURIComponent(data.id)}`;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showProblem($("ask-problem"), error);
    announce(`Refused: ${error.detail}`);
  } finally {
    button.disabled = false;
    text(button, "Start research");
  }
}

// The recipes come from the service (GET /v1/recipes): the page knows none by name.
const recipes = new Map(); // name -> {name, title, description, default}

let recipesLoading = null;

function loadRecipes() {
  recipesLoading = recipesLoading || fetchRecipes();
  return recipesLoading;
}

async function fetchRecipes() {
  let data;
  try {
    ({ data } = await api("v1/recipes"));
  } catch {
    recipesLoading = null; // try again next time; meanwhile "Default": the service chooses
    return;
  }
  const select = $("recipe");
  clear(select);
  for (const recipe of data.recipes) {
    recipes.set(recipe.name, recipe);
    select.append(h("option", { value: recipe.name, selected: recipe.default ? "" : null }, recipe.title));
  }
  describeRecipe();
}

function describeRecipe() {
  const recipe = recipes.get($("recipe").value);
  if (recipe) text($("recipe-help"), `${recipe.title}: ${recipe.description}`);
}

/** How a job's recipe is shown: nothing for the default recipe, else its title. */
function recipeLabel(name) {
  const recipe = recipes.get(name);
  if (recipe && recipe.default) return null;
  return recipe ? recipe.title : name;
}

async function loadActiveBanner() {
  const banner = $("active-banner");
  try {
    const { data } = await api("v1/research?limit=10");
    const active = data.jobs.find((job) => ACTIVE.has(job.status));
    banner.hidden = !active;
    if (active) {
      banner.replaceChildren("A run is in progress: ",
        h("a", { href: `#/runs/${encodeURIComponent(active.id)}` }, active.question), ".");
    }
  } catch {
    banner.hidden = true;
  }
}

// ---- History ----------------------------------------------------------------------------

let historyBefore = null;

async function loadHistory(more = false) {
  const list = $("history-list");
  const problem = $("history-problem");
  if (!more) {
    clear(list);
    historyBefore = null;
  }
  list.setAttribute("aria-busy", "true");
  showProblem(problem, null);
  await loadRecipes();
  const query = new URLSearchParams({ limit: "20" });
  if (more && historyBefore) query.set("before", historyBefore);
  try {
    const { data } = await api(`v1/research?${query}`);
    for (const job of data.jobs) list.append(historyItem(job));
    historyBefore = data.next_before;
    $("history-more").hidden = !data.next_before;
    $("history-empty").hidden = list.children.length > 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showProblem(problem, error);
  } finally {
    list.setAttribute("aria-busy", "false");
  }
}

function historyItem(job) {
  const meta = [fmtTime(job.created_at), recipeLabel(job.recipe),
    job.options && job.options.depth ? job.options.depth : null].filter(Boolean).join(" · ");
  return h("li", { class: "history-item", "data-job": job.id, "data-status": job.status },
    h("a", { href: `#/runs/${encodeURIComponent(job.id)}`, class: "history-link" },
      h("span", { class: "history-question" }, job.question),
      h("span", { class: "history-meta" },
        statusBadge(h("span", {}), job.status), " ",
        ACTIVE.has(job.status) ? h("span", { class: "live-hint" }, `${Math.round((job.progress || 0) * 100)}% · watch live`) : null,
        job.status === "AWAITING_INPUT" ? h("span", { class: "live-hint" }, "waiting for your answer") : null,
        " ", h("span", {}, meta), " ", h("span", { class: "mono" }, job.id))));
}

// ---- a run: watch it, then read it --------------------------------------------------------

function closeRun() {
  if (!run) return;
  run.closed = true;
  if (run.stream) run.stream.stop();
  if (run.watch) run.watch.destroy();
  if (run.input) run.input.destroy();
  if (run.report) run.report.destroy();
  run = null;
}

async function openRun(id) {
  if (run && run.id === id) {
    showView("run");
    return;
  }
  closeRun();
  const current = { id, closed: false };
  run = current;
  showView("run", { focus: false });
  text($("run-heading"), "Loading…");
  text($("run-id"), id);
  text($("run-recipe"), "");
  statusBadge($("run-status"), "");
  clear($("watch"));
  clear($("read"));
  showProblem($("run-problem"), null);
  let job;
  try {
    ({ data: job } = await api(`v1/research/${encodeURIComponent(id)}`));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (current.closed) return;
    text($("run-heading"), "Run not available");
    showProblem($("run-problem"), error);
    return;
  }
  await loadRecipes();
  if (current.closed) return;
  document.title = `${job.question.slice(0, 60)} · deepresearch`;
  text($("run-heading"), job.question);
  const label = recipeLabel(job.recipe);
  text($("run-recipe"), label ? `recipe: ${label}` : "");
  statusBadge($("run-status"), job.status);
  if (navigated) $("run-heading").focus();
  if (flash) {
    $("watch").before(h("p", { class: "flash", role: "status" }, flash));
    flash = "";
  }
  current.watch = new RunWatch($("watch"), job, {
    onCancel: () => cancelRun(current),
    onReconnect: () => current.stream && current.stream.reconnectNow(),
  });
  // a run that waits for an answer shows what it asks above its timeline (issue 15)
  current.input = new InputPanel($("ask-back"), id, {
    onAnswered: (data) => { if (!current.closed) statusBadge($("run-status"), data.status); },
  });
  if (job.status === "AWAITING_INPUT") current.input.show(job.input_request);
  const finishedAtOpen = TERMINAL.has(job.status);
  if (finishedAtOpen) current.watch.collapse("(the finished run's timeline)");
  current.stream = new EventStream(`v1/research/${encodeURIComponent(id)}/events`, {
    onEvent: (event, seq) => {
      current.watch.apply(event, seq);
      if (event.type === "run_started") statusBadge($("run-status"), "RUNNING");
      if (event.type === "input_requested") {
        current.input.show(eventData(event));
        statusBadge($("run-status"), "AWAITING_INPUT");
      }
      if (["input_received", "run_cancelled", "run_expired", "run_failed"].includes(event.type)) {
        current.input.hide();
      }
    },
    onState: (state, info) => current.watch.connection(state, info),
    isFinished: async () => {
      const { data } = await api(`v1/research/${encodeURIComponent(id)}`);
      if (!current.closed) {
        statusBadge($("run-status"), data.status);
        current.watch.setStatus(data.status);
      }
      return TERMINAL.has(data.status);
    },
  }).start();
  current.stream.done.then(() => finishRun(current, !finishedAtOpen));
  if (finishedAtOpen) loadReport(current, job);
}

async function cancelRun(current) {
  try {
    const { data } = await api(`v1/research/${encodeURIComponent(current.id)}/cancel`, { method: "POST" });
    if (!current.closed) statusBadge($("run-status"), data.cancel_requested && data.status === "RUNNING" ? "RUNNING" : data.status);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (!current.closed) showProblem($("run-problem"), error);
    throw error;
  }
}

async function finishRun(current, live) {
  if (current.closed) return;
  let job;
  try {
    ({ data: job } = await api(`v1/research/${encodeURIComponent(current.id)}`));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return;
  }
  if (current.closed) return;
  statusBadge($("run-status"), job.status);
  current.watch.setStatus(job.status);
  if (!live) return;
  if (job.status === "COMPLETED") {
    announce("Research finished: the report is ready");
    current.watch.collapse("(finished: the report is below)");
    await loadReport(current, job);
  } else if (job.status === "FAILED") {
    announce("The run failed");
    showProblem($("run-problem"), new ApiError(500, { title: "Run failed", detail: job.error || "the run failed" }));
  } else if (job.status === "CANCELLED") {
    announce("The run was cancelled");
  }
}

async function loadReport(current, job) {
  if (job.status !== "COMPLETED") {
    if (job.status === "FAILED" && job.error) {
      showProblem($("run-problem"), new ApiError(500, { title: "Run failed", detail: job.error }));
    } else if (job.status === "EXPIRED") {
      showProblem($("run-problem"), new ApiError(410, { title: "Gone", detail: "this run's results have expired" }));
    }
    return;
  }
  const read = $("read");
  read.replaceChildren(h("p", { class: "loading", role: "status" }, "Loading the report…"));
  const base = `v1/research/${encodeURIComponent(current.id)}`;
  try {
    const [{ data: report }, { data: sources }] = await Promise.all([
      api(`${base}/report?format=json`),
      api(`${base}/sources`),
    ]);
    if (current.closed) return;
    current.report = new ReportView(read, current.id, {
      download: downloadReport,
      evaluate: async () => {
        await api(`${base}/eval`, { method: "POST" });
        if (!current.closed) await loadReport(current, job);
        announce("The report was evaluated");
      },
    });
    current.report.render(report, sources.sources);
    const thread = threadBox(job, report, {
      ask: async (question) => {
        const { data } = await api(`${base}/followups`, {
          method: "POST", body: { question }, headers: { "Idempotency-Key": idempotencyKey() },
        });
        return data.id;
      },
    });
    if (thread) read.append(thread);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (current.closed) return;
    clear(read);
    showProblem($("run-problem"), error);
  }
}

/**
 * Downloads go through fetch when a key is set (a plain link cannot send the header);
 * without a key the link's own download works, so it is left alone.
 */
async function downloadReport(event, format) {
  if (!auth.current()) return;
  event.preventDefault();
  const link = event.currentTarget;
  try {
    const response = await fetch(apiUrl(link.getAttribute("href")), {
      headers: authHeaders(), cache: "no-store", credentials: "omit",
    });
    if (!response.ok) throw new ApiError(response.status, await readProblem(response));
    const blob = await response.blob();
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = link.getAttribute("download") || `report.${format}`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (error) {
    showProblem($("run-problem"), error instanceof ApiError ? error : new ApiError(0, null));
  }
}

// ---- start --------------------------------------------------------------------------------

function start() {
  $("ask-form").addEventListener("submit", submitQuestion);
  $("key-form").addEventListener("submit", submitKey);
  $("history-more").addEventListener("click", () => loadHistory(true));
  library = new LibraryView({
    form: $("library-form"),
    results: $("library-results"),
    empty: $("library-empty"),
    problem: $("library-problem"),
    showProblem,
  });
  watches = new WatchesView({
    form: $("watches-form"),
    list: $("watches-list"),
    empty: $("watches-empty"),
    problem: $("watches-problem"),
    detail: $("watch-detail"),
    showProblem,
  });
  $("recipe").addEventListener("change", describeRecipe);
  $("council").addEventListener("change", () => { $("council").dataset.touched = "true"; });
  $("depth").addEventListener("change", () => {
    if (!$("council").dataset.touched) $("council").checked = $("depth").value === "deep";
  });
  $("forget-key").addEventListener("click", () => {
    auth.clear();
    closeRun();
    route();
  });
  for (const id of ["question", "model"]) {
    $(id).addEventListener("input", () => {
      if ($(id).getAttribute("aria-invalid") === "true") fieldError(id, "");
    });
  }
  auth.onChange(renderKeyStatus);
  renderKeyStatus();
  window.addEventListener("hashchange", route);
  route();
  document.documentElement.dataset.ready = "true";
}

start();
