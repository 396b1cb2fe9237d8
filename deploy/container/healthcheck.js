'use strict';
// The containers' health check: exit 0 when the URL answers 2xx within 4 s. Node's own fetch, so
// the image needs no curl. Give it a liveness path (`/livez`: the process answers) or a readiness
// path (`/readyz`: its database, Temporal and, for the worker, its mailboxes answer); when the answer
// is not 2xx, the reasons a readiness body names are printed, one line per dependency that is not
// ready, so `docker inspect` shows why. The whole-configuration check, `email-rag doctor`, is a
// command run by hand (docs/deploying.md, "First run").
const url = process.argv[2];
if (!url || !/^https?:\/\//.test(url)) {
  console.error('usage: node healthcheck.js <http://host:port/path>');
  process.exit(2);
}

/** `database: failing (MariaDB at db:3306/email_rag: connect ECONNREFUSED)` for each check with a reason (a ready one has none). */
function reasons(text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return [text.slice(0, 300)];
  }
  if (!body || !Array.isArray(body.checks)) return [text.slice(0, 300)];
  return body.checks
    .filter((c) => c.reason)
    .map((c) => `${c.dependency}${c.target ? ` ${c.target}` : ''}: ${c.state}${c.reason ? ` (${c.reason})` : ''}`);
}

fetch(url, { signal: AbortSignal.timeout(4000) }).then(
  async (res) => {
    if (res.ok) process.exit(0);
    const text = await res.text().catch(() => '');
    console.error(`${url}: HTTP ${res.status}`);
    for (const line of reasons(text)) console.error(`  ${line}`);
    process.exit(1);
  },
  (err) => {
    console.error(`${url}: ${err.cause?.code ?? err.message}`);
    process.exit(1);
  },
);
