// Talking to the /v1 API: the API key (sessionStorage, this tab only), JSON requests, and
// RFC 9457 problem details turned into errors whose `detail` the page shows as it is.

const KEY_NAME = "deepresearch.apiKey";

/** Resolves an API path ("v1/research") against the page, so a path prefix keeps working. */
export function apiUrl(path) {
  return new URL(path, document.baseURI).href;
}

export const auth = {
  get() {
    try {
      return sessionStorage.getItem(KEY_NAME) || "";
    } catch {
      return "";
    }
  },
  set(key) {
    try {
      sessionStorage.setItem(KEY_NAME, key);
    } catch {
      /* storage refused (private mode): the key lives until the tab reloads */
    }
    memoryKey = key;
    for (const listener of listeners) listener();
  },
  clear() {
    try {
      sessionStorage.removeItem(KEY_NAME);
    } catch {
      /* nothing stored */
    }
    memoryKey = "";
    for (const listener of listeners) listener();
  },
  current() {
    return this.get() || memoryKey;
  },
  onChange(listener) {
    listeners.add(listener);
  },
  /** Set by the app: shows the key form; resolves once a key was entered. */
  onUnauthorized: null,
};
let memoryKey = "";
const listeners = new Set();

export function authHeaders(headers = {}) {
  const key = auth.current();
  return key ? { ...headers, Authorization: `Bearer ${key}` } : { ...headers };
}

export class ApiError extends Error {
  constructor(status, problem) {
    const detail = (problem && typeof problem.detail === "string" && problem.detail)
      || (status ? `the service answered ${status}` : "the service cannot be reached");
    super(detail);
    this.status = status;
    this.detail = detail;
    this.title = problem && typeof problem.title === "string" ? problem.title : "";
    this.errors = problem && Array.isArray(problem.errors) ? problem.errors : [];
    // what to do about it (a missing key: which setting to set on the server)
    this.hint = problem && typeof problem.hint === "string" ? problem.hint : "";
    this.retryAfter = problem ? problem.retryAfter : null;
  }
}

export async function readProblem(response) {
  let problem = null;
  try {
    const type = response.headers.get("content-type") || "";
    problem = type.includes("json") ? await response.json() : { detail: (await response.text()).slice(0, 300) };
  } catch {
    problem = null;
  }
  if (problem && typeof problem === "object") {
    problem.retryAfter = response.headers.get("retry-after");
  }
  return problem;
}

/**
 * One JSON request. Resolves to the parsed body (and the response); throws ApiError with
 * the service's problem `detail`. A 401 asks for a key (auth.onUnauthorized) and retries.
 */
export async function api(path, { method = "GET", body, headers = {}, signal } = {}) {
  for (;;) {
    const sentKey = auth.current();
    let response;
    try {
      response = await fetch(apiUrl(path), {
        method,
        headers: authHeaders({
          Accept: "application/json",
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          ...headers,
        }),
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        cache: "no-store",
        credentials: "omit",
      });
    } catch (error) {
      if (error && error.name === "AbortError") throw error;
      throw new ApiError(0, null);
    }
    if (response.ok) {
      const data = response.status === 204 ? null : await response.json();
      return { data, response };
    }
    const problem = await readProblem(response);
    if (response.status === 401 && auth.onUnauthorized) {
      await auth.onUnauthorized(new ApiError(401, problem), sentKey);
      continue;
    }
    throw new ApiError(response.status, problem);
  }
}

/** A random Idempotency-Key, so a double submission makes one job. */
export function idempotencyKey() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function" && window.isSecureContext) {
    return crypto.randomUUID();
  }
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
