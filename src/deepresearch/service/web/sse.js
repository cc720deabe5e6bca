// The job's server-sent events, read with fetch() and a stream parser rather than
// EventSource: EventSource cannot send an Authorization header. The stream reconnects by
// itself after a drop (backoff, sooner when the browser comes back online), resumes with
// Last-Event-ID, and hands each event on exactly once, in order: an event whose id is not
// above the last one handed on is dropped as a duplicate.

import { ApiError, apiUrl, auth, authHeaders, readProblem } from "./api.js";

export const TERMINAL_EVENTS = new Set(["run_completed", "run_failed", "run_cancelled", "run_expired"]);
const FATAL_STATUSES = new Set([400, 403, 404, 410]);

export class EventStream {
  /**
   * @param {string} path  the events path, e.g. "v1/research/run-1/events"
   * @param {object} options
   *   lastSeq       events up to this id were already handled
   *   onEvent(event, seq)   each new event, once, in order
   *   onState(state, info)  "connecting" | "live" | "waiting" | "auth" | "ended" | "failed"
   *   onHeartbeat(data)     the server's heartbeat (no id)
   *   isFinished()          async: did the job end? asked when a stream ends without a terminal event
   *   stallMs               no byte for this long (heartbeats come every 10 s): reconnect
   */
  constructor(path, options = {}) {
    this.path = path;
    this.lastSeq = options.lastSeq || 0;
    this.onEvent = options.onEvent || (() => {});
    this.onState = options.onState || (() => {});
    this.onHeartbeat = options.onHeartbeat || (() => {});
    this.isFinished = options.isFinished || null;
    this.stallMs = options.stallMs || 45000;
    this.retryMs = 2000;
    this.maxRetryMs = 30000;
    this.failures = 0;
    this.stopped = false;
    this.controller = null;
    this.wake = null;
    this.stats = { connections: 0, drops: 0, duplicates: 0, gaps: 0 };
    this.state = "idle";
    this.onOnline = () => this.reconnectNow();
    this.onOffline = () => {
      // the browser knows the network is gone: do not wait for the stall timer
      if (this.controller) this.controller.abort();
    };
  }

  start() {
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
    this.done = this.run().finally(() => {
      window.removeEventListener("online", this.onOnline);
      window.removeEventListener("offline", this.onOffline);
    });
    return this;
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
    if (this.wake) this.wake();
  }

  /** Skip the rest of a backoff wait. */
  reconnectNow() {
    if (this.wake) this.wake();
  }

  setState(state, info = {}) {
    this.state = state;
    this.onState(state, { ...info, stats: { ...this.stats }, lastSeq: this.lastSeq });
  }

  async run() {
    while (!this.stopped) {
      this.controller = new AbortController();
      const sentKey = auth.current();
      const headers = authHeaders({ Accept: "text/event-stream" });
      if (this.lastSeq > 0) headers["Last-Event-ID"] = String(this.lastSeq);
      this.setState("connecting", { attempt: this.failures + 1 });
      let response;
      try {
        response = await fetch(apiUrl(this.path), {
          headers,
          signal: this.controller.signal,
          cache: "no-store",
          credentials: "omit",
        });
      } catch {
        if (this.stopped) break;
        await this.backoff();
        continue;
      }
      if (!response.ok) {
        const problem = await readProblem(response);
        const error = new ApiError(response.status, problem);
        if (response.status === 401 && auth.onUnauthorized) {
          this.setState("auth", { error });
          await auth.onUnauthorized(error, sentKey);
          continue;
        }
        if (FATAL_STATUSES.has(response.status)) {
          this.setState("failed", { error });
          return;
        }
        await this.backoff(error);
        continue;
      }
      this.failures = 0;
      this.stats.connections += 1;
      this.setState("live");
      let terminal = false;
      try {
        terminal = await this.consume(response.body);
      } catch {
        /* dropped, stalled or stopped: below */
      }
      if (this.stopped) break;
      if (terminal) {
        this.setState("ended");
        return;
      }
      this.stats.drops += 1;
      // the stream ended or broke without the terminal event: maybe the job ended without
      // one (expired, or cancelled while queued), else reconnect from the last id
      if (this.isFinished) {
        let finished = false;
        try {
          finished = await this.isFinished();
        } catch {
          finished = false;
        }
        if (finished) {
          this.setState("ended");
          return;
        }
      }
      await this.backoff();
    }
    this.setState("ended", { stopped: true });
  }

  async backoff(error = null) {
    this.failures += 1;
    const base = Math.min(this.maxRetryMs, this.retryMs * 1.5 ** (this.failures - 1));
    const delay = Math.round(base * (0.85 + Math.random() * 0.3));
    this.setState("waiting", { retryAt: Date.now() + delay, delay, error });
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, delay);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  /** Reads one response body; true when the terminal event arrived. */
  async consume(body) {
    const reader = body.getReader();
    const decoder = new TextDecoder("utf-8");
    this.buffer = "";
    this.block = { lines: [], event: "", id: null };
    let stallTimer = 0;
    const armStall = () => {
      clearTimeout(stallTimer);
      stallTimer = setTimeout(() => this.controller && this.controller.abort(), this.stallMs);
    };
    armStall();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          this.buffer += decoder.decode();
          return this.parse(true);
        }
        armStall();
        this.buffer += decoder.decode(value, { stream: true });
        if (this.parse(false)) {
          reader.cancel().catch(() => {});
          return true;
        }
      }
    } finally {
      clearTimeout(stallTimer);
    }
  }

  /** Handles every complete line in the buffer; true once the terminal event was handled. */
  parse(final) {
    const buf = this.buffer;
    let pos = 0;
    while (pos < buf.length) {
      const cr = buf.indexOf("\r", pos);
      const lf = buf.indexOf("\n", pos);
      if (cr === -1 && lf === -1) break;
      let end;
      let next;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        if (cr === buf.length - 1 && !final) break; // "\r\n" may be split across chunks
        end = cr;
        next = buf[cr + 1] === "\n" ? cr + 2 : cr + 1;
      } else {
        end = lf;
        next = lf + 1;
      }
      const terminal = this.line(buf.slice(pos, end));
      pos = next;
      if (terminal) {
        this.buffer = buf.slice(pos);
        return true;
      }
    }
    this.buffer = buf.slice(pos);
    return false;
  }

  line(line) {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return false; // a comment
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.block.lines.push(value);
    else if (field === "event") this.block.event = value;
    else if (field === "id" && !value.includes("\0")) this.block.id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return false;
  }

  dispatch() {
    const block = this.block;
    this.block = { lines: [], event: "", id: null };
    if (!block.lines.length) return false;
    const name = block.event || "message"; // the SSE event's name: a run event's type
    let payload = null;
    try {
      payload = JSON.parse(block.lines.join("\n"));
    } catch {
      payload = null;
    }
    if (name === "heartbeat") {
      this.onHeartbeat(payload || {});
      return false;
    }
    if (block.id === null || !/^\d+$/.test(block.id)) return false;
    const seq = Number(block.id);
    if (seq <= this.lastSeq) {
      this.stats.duplicates += 1;
      return false;
    }
    if (this.lastSeq > 0 && seq !== this.lastSeq + 1) this.stats.gaps += 1;
    this.lastSeq = seq;
    if (payload && typeof payload === "object") this.onEvent(payload, seq);
    return TERMINAL_EVENTS.has(name);
  }
}
