/**
 * The review queue under a large backlog: 10,000 emails waiting for a person (each with a draft and
 * a case, over three mailboxes, four owners and two teams) beside 10,000 answered ones, in a
 * throwaway database; the real inbox app (buildInboxApp, password login, sessions, CSRF, nunjucks)
 * on a real HTTP socket; one signed-in reviewer. Each figure is a full page request (queue query,
 * page rows, rendering), measured by the client.
 */
import type { AddressInfo } from 'node:net';
import { hashPassword } from '../../src/review-inbox/password.bcrypt';
import { createMariaDbCaseClaims } from '../../src/cases/case-claims.mariadb';
import { createMariaDbCaseRouting } from '../../src/cases/case-routing.mariadb';
import { createMariaDbInboxUsers } from '../../src/review-inbox/inbox-users.mariadb';
import { createMariaDbReviewStore } from '../../src/review-inbox/review-store.mariadb';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { buildInboxApp } from '../../src/review-inbox/app';
import { loadConfig } from '../../src/config';
import { createTestDatabase } from '../../test/support/database';
import { DEFAULT_QUEUE_SEED, seedQueue, seededCaseId, seededEmailId } from '../../test/support/queue-seed';

export interface QueueFigure {
  name: string;
  requests: number;
  /** Rows on the page (of the last request). */
  rows: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const PASSWORD = 'bench-reviews-2026';
const NAMES = ['mueller', 'schmidt', 'schneider', 'fischer', 'weber', 'meyer', 'wagner', 'becker', 'schulz', 'hoffmann'];
const WORDS = ['Lieferung', 'Rechnung', 'Retoure', 'Kündigung', 'Passwort', 'Adresse', 'Zahlung', 'Gutschein', 'Defekt', 'Termin'];

const sender = (k: number) => `${NAMES[k % 10]}.${k}`;
const subject = (k: number) => `${WORDS[k % 10]} ${1000 + k}`;

/** Logs in through the form as a browser does; returns the session cookie. */
async function login(base: string, name: string): Promise<string> {
  const form = await fetch(`${base}/login`);
  const cookie = (form.headers.get('set-cookie') ?? '').split(';')[0]!;
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!token) throw new Error('the login form has no CSRF token');
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: token, name, password: PASSWORD }),
    redirect: 'manual',
  });
  if (res.status !== 303) throw new Error(`login failed: HTTP ${res.status}`);
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}

export async function runQueueBench(
  opts: { waiting?: number; requests?: number },
  log: (line: string) => void,
): Promise<{ seedMs: number; figures: QueueFigure[] }> {
  const waiting = opts.waiting ?? DEFAULT_QUEUE_SEED.waiting;
  const requests = opts.requests ?? 50;
  const db = await createTestDatabase('bench_queue');
  try {
    const t0 = Date.now();
    await seedQueue(db.pool, { ...DEFAULT_QUEUE_SEED, waiting, done: waiting });
    const seedMs = Date.now() - t0;
    log(`bench: ${waiting} waiting and ${waiting} answered emails seeded in ${seedMs} ms`);
    const users = createMariaDbInboxUsers(db.pool);
    await users.upsert('rita', await hashPassword(PASSWORD), 'reviewer');
    // The bench's output is its figures: no access line for each of its thousands of requests.
    const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'password', LOG_LEVEL: 'warn' }, { imap: false });
    // Queue pages never talk to Temporal; the review page would (not measured here).
    const decisions = { state: async () => null } as unknown as TemporalDecisions;
    const app = await buildInboxApp({
      config,
      pool: db.pool,
      store: createMariaDbReviewStore(db.pool),
      users,
      decisions,
      requeue: () => Promise.resolve(''),
      claims: createMariaDbCaseClaims(db.pool),
      caseRouting: createMariaDbCaseRouting(db.pool),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    try {
      const cookie = await login(base, 'rita');
      const page = async (path: string) => {
        const res = await fetch(`${base}${path}`, { headers: { cookie } });
        const html = await res.text();
        if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}`);
        return html;
      };
      const rowsOf = (html: string) => (html.match(/<tr data-email-id=/g) ?? []).length;
      const nextOf = (html: string) => /<a href="([^"]+)" id="page-next"/.exec(html)?.[1]?.replace(/&amp;/g, '&') ?? null;
      // Page 100: its link is found by following 99 next links, as a reviewer would.
      let deep = '/';
      for (let i = 1; i < 100; i++) {
        const next = nextOf(await page(deep));
        if (!next) throw new Error(`the queue ended at page ${i}`);
        deep = next;
      }
      const scenarios: Array<[string, (i: number) => string]> = [
        ['first page', () => '/'],
        ['page 100 (cursor)', () => deep],
        ['my queue', () => '/?view=mine'],
        ['unassigned', () => '/?view=unassigned'],
        // Seeded senders are `<name>.<k>@…` and subjects `<word> <1000 + k> <word>` for the k-th email.
        ['search sender', (i) => `/?q=${encodeURIComponent(sender((i * 37) % waiting))}`],
        ['search subject', (i) => `/?q=${encodeURIComponent(subject((i * 131) % waiting))}`],
        ['lookup email id', (i) => `/?q=${seededEmailId((i * 211) % waiting)}`],
        ['lookup case id', (i) => `/?q=${seededCaseId((i * 211) % waiting)}`],
      ];
      const figures: QueueFigure[] = [];
      for (const [name, path] of scenarios) {
        for (let i = 0; i < 5; i++) await page(path(i + 1000)); // warm-up: plans and buffers, as on a server that runs
        const took: number[] = [];
        let rows = 0;
        for (let i = 0; i < requests; i++) {
          const t = performance.now();
          rows = rowsOf(await page(path(i)));
          took.push(performance.now() - t);
        }
        took.sort((a, b) => a - b);
        figures.push({ name, requests, rows, p50Ms: percentile(took, 50), p95Ms: percentile(took, 95), maxMs: took.at(-1)! });
      }
      return { seedMs, figures };
    } finally {
      await app.close();
    }
  } finally {
    await db.drop();
  }
}

export function printQueueFigures(figures: QueueFigure[], log: (line: string) => void): void {
  const ms = (n: number) => n.toFixed(1).padStart(8);
  log(
    `${'request'.padEnd(20)} ${'n'.padStart(4)} ${'rows'.padStart(5)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)}`,
  );
  for (const f of figures)
    log(
      `${f.name.padEnd(20)} ${String(f.requests).padStart(4)} ${String(f.rows).padStart(5)} ${ms(f.p50Ms)} ${ms(f.p95Ms)} ${ms(f.maxMs)}`,
    );
}
