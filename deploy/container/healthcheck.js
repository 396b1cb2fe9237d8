'use strict';
// The containers' health check: exit 0 when the URL answers 2xx within 4 s. Node's own fetch, so
// the image needs no curl. Liveness only: the whole-configuration check, `email-rag doctor`, is a
// command run by hand (docs/deploying.md, "First run").
const url = process.argv[2];
fetch(url, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  (err) => {
    console.error(`${url}: ${err.cause?.code ?? err.message}`);
    process.exit(1);
  },
);
