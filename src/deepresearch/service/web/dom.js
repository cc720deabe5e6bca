// DOM helpers. Everything the API returns is untrusted web content (page titles, quotes,
// messages): it only ever reaches the page as text nodes or checked attributes, never as
// markup: no HTML string is ever parsed (tests/web/test_assets.py checks the sources).

/**
 * h("a", {href, class: "x", onclick}, "text", child, [more, children]) -> Element.
 * Strings become text nodes; null/undefined/false children are skipped.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      el.className = value;
    } else if (name === "dataset") {
      for (const [key, val] of Object.entries(value)) el.dataset[key] = String(val);
    } else if (name === "href") {
      // the page's own routes and API paths, or an http(s) URL: never javascript: or data:
      const href = /^(#|v1\/)/.test(String(value)) ? String(value) : safeUrl(value);
      if (href) el.setAttribute("href", href);
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function text(el, value) {
  const s = value === null || value === undefined ? "" : String(value);
  if (el.textContent !== s) el.textContent = s;
  return el;
}

/** An http(s) URL as a string, or null: nothing else ever becomes a link. */
export function safeUrl(value) {
  if (typeof value !== "string") return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A link to a cited source: a new tab, no opener, no referrer. Text only if not http(s). */
export function sourceLink(url, label, attrs = {}) {
  const href = safeUrl(url);
  if (!href) return h("span", attrs, label);
  return h("a", { ...attrs, href, target: "_blank", rel: "noopener noreferrer" }, label);
}

/** What a URL looks like without its scheme: shown for sources that are not links. */
export function shortUrl(value) {
  try {
    const url = new URL(value);
    const path = url.pathname === "/" ? "" : url.pathname;
    return `${url.host}${path}${url.search}`;
  } catch {
    return String(value ?? "");
  }
}

export function num(value) {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

export function fmtInt(value) {
  return num(value).toLocaleString("en-US");
}

export function fmtScore(value) {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(2) : "–";
}

export function fmtPercent(value) {
  return typeof value === "number" && Number.isFinite(value) ? `${Math.round(value * 100)}%` : "–";
}

export function fmtDuration(ms) {
  if (ms < 1000) return "<1 s";
  const s = Math.floor(ms / 1000);
  const m = Math.floor(s / 60);
  const hrs = Math.floor(m / 60);
  if (hrs) return `${hrs} h ${String(m % 60).padStart(2, "0")} min`;
  if (m) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${s} s`;
}

export function fmtTime(value) {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
  });
}

let announceTimer = 0;
/** Tell screen readers something (a polite live region), without flooding them. */
export function announce(message) {
  const region = document.getElementById("announcer");
  if (!region) return;
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => { region.textContent = message; }, 150);
}

export const STATUS_LABELS = {
  QUEUED: "Queued",
  RUNNING: "Running",
  AWAITING_INPUT: "Waiting for you",
  COMPLETED: "Completed",
  FAILED: "Failed",
  CANCELLED: "Cancelled",
  EXPIRED: "Expired",
};

export function statusBadge(el, status) {
  el.className = `badge status-${String(status || "unknown").toLowerCase()}`;
  text(el, STATUS_LABELS[status] || status || "");
  return el;
}

let uid = 0;
export function newId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}
