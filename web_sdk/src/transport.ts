/**
 * Sending to the service. Every call is a POST of JSON sent as text/plain (a "simple" request:
 * no CORS preflight) with the web key in the URL, by fetch with keepalive (it outlives the page),
 * or sendBeacon where there is no fetch. A send that fails for a reason that may pass (no
 * network, 408, 429, 5xx) is kept in a small stored queue and sent again, oldest first, on the
 * next page load or when the browser comes back online; one the server refused (another 4xx) is
 * dropped with a console warning, since sending it again cannot change the answer.
 */

import { KEYS, readJson, type Store } from "./storage";
import { uuid } from "./identity";
import type { Envelope } from "./wire";

export const QUEUE_MAX = 50;
export const QUEUE_MAX_AGE_MS = 7 * 86400 * 1000;
/** Under the server's 64 KB limit and the browser's quota for keepalive requests. */
export const MAX_BODY_BYTES = 60000;

/** i: an id to remove it by; p: the path; b: the body; t: when it was first sent. */
export type QueueEntry = { i: string; p: string; b: object; t: number };

type Outcome = "ok" | "retry" | "drop";

export type Transport = {
  /** Resolves with the answer's `data`, or undefined when it was not answered (kept or dropped). */
  post<T>(path: string, body: object): Promise<T | undefined>;
  get<T>(path: string, query: Record<string, string>): Promise<T | undefined>;
  flush(): Promise<void>;
};

export const warn = (w: Window & typeof globalThis, message: string): void => {
  try {
    w.console.warn("Attribution: " + message);
  } catch {
    // no console: nothing to say it on
  }
};

export function outcomeOf(status: number): Outcome {
  if (status >= 200 && status < 300) return "ok";
  return status === 408 || status === 429 || status >= 500 ? "retry" : "drop";
}

export function queueRead(store: Store, now: number): QueueEntry[] {
  const entries = readJson<QueueEntry[]>(store, KEYS.queue);
  return Array.isArray(entries) ? entries.filter((e) => e && e.i && now - e.t < QUEUE_MAX_AGE_MS) : [];
}

/** The newest QUEUE_MAX entries are kept: a browser offline for long loses its oldest sends. */
export function queueWrite(store: Store, entries: QueueEntry[]): void {
  if (entries.length) store.set(KEYS.queue, JSON.stringify(entries.slice(-QUEUE_MAX)));
  else store.del(KEYS.queue);
}

export function createTransport(
  w: Window & typeof globalThis,
  store: Store,
  endpoint: string,
  key: string,
  stopped: () => boolean,
): Transport {
  const inflight = new Set<QueueEntry>();
  let flushing: Promise<void> | null = null;
  const url = (path: string, query: Record<string, string> = {}) =>
    `${endpoint}${path}?${new URLSearchParams({ key, ...query })}`;

  const keep = (entry: QueueEntry) => {
    const entries = queueRead(store, Date.now());
    if (!stopped() && !entries.some((e) => e.i === entry.i)) queueWrite(store, [...entries, entry]);
  };
  const forget = (entry: QueueEntry) =>
    queueWrite(
      store,
      queueRead(store, Date.now()).filter((e) => e.i !== entry.i),
    );

  async function attempt(entry: QueueEntry): Promise<[Outcome, unknown?]> {
    if (stopped()) return ["drop"];
    const body = JSON.stringify(entry.b);
    if (new TextEncoder().encode(body).length > MAX_BODY_BYTES) {
      warn(w, `${entry.p}: body over ${MAX_BODY_BYTES} bytes, not sent`);
      return ["drop"];
    }
    inflight.add(entry);
    try {
      if (typeof w.fetch !== "function") return [w.navigator.sendBeacon(url(entry.p), body) ? "ok" : "retry"];
      const response = await w.fetch(url(entry.p), {
        method: "POST",
        body,
        keepalive: true,
        credentials: "omit",
      });
      const outcome = outcomeOf(response.status);
      let answer: Envelope<unknown> | undefined;
      try {
        answer = await response.json();
      } catch {
        // an answer that is not the envelope: the status said enough
      }
      if (outcome === "drop") warn(w, `${entry.p}: ${response.status} ${answer?.error?.message || ""}`);
      return [outcome, answer?.data];
    } catch {
      return ["retry"];
    } finally {
      inflight.delete(entry);
    }
  }

  // A send still under way when the page goes is stored too: the browser may cancel it (where
  // keepalive is missing), and the server drops the copy when it did arrive (each body has an id).
  w.addEventListener("pagehide", () => inflight.forEach(keep));
  w.addEventListener("online", () => void transport.flush());

  const transport: Transport = {
    async post<T>(path: string, body: object) {
      const entry = { i: uuid(w.crypto), p: path, b: body, t: Date.now() };
      const [outcome, data] = await attempt(entry);
      if (outcome === "retry") keep(entry);
      return outcome === "ok" ? (data as T) : undefined;
    },
    async get<T>(path: string, query: Record<string, string>) {
      if (stopped()) return undefined;
      try {
        const response = await w.fetch(url(path, query), { credentials: "omit" });
        return response.ok ? ((await response.json()) as Envelope<T>).data : undefined;
      } catch {
        return undefined;
      }
    },
    flush() {
      // Oldest first, one at a time, stopping at the first that still fails: order matters to
      // the server (a browser's first visit is the install, its later ones are sessions). The
      // queue is read again after each send, so what fails meanwhile goes out in turn.
      flushing ??= (async () => {
        const tried = new Set<string>();
        for (;;) {
          const entry = queueRead(store, Date.now()).find((e) => !tried.has(e.i));
          if (!entry) break;
          tried.add(entry.i);
          const [outcome] = await attempt(entry);
          if (outcome === "retry") break;
          forget(entry);
        }
      })().finally(() => (flushing = null));
      return flushing;
    },
  };
  return transport;
}
