/**
 * The spamd client (src/triage/spam-scorer.spamd.ts) against a real SpamAssassin spamd from
 * Debian's package, with the rules it ships and no network tests; and its failures: nobody
 * listening, a server that never answers, an answer that is not spamd's.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import {
  createSpamdLearner,
  createSpamdScorer,
  MAX_SPAMD_BYTES,
  parseSpamdAnswer,
  parseTellAnswer,
} from '../../src/triage/spam-scorer.spamd';
import { freePort } from '../support/services/ports';
import { useSpamd, type Spamd } from '../support/services/spamd';

const SPAM = path.join(__dirname, '../fixtures/spam-corpus/spamassassin/spam/015');
const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

const mail = (subject: string, body: string) =>
  Buffer.from(
    [
      'From: Erika Mustermann <erika@customer.example>',
      'To: support@example.test',
      `Subject: ${subject}`,
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <${Math.random().toString(36).slice(2)}@customer.example>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      body,
      '',
    ].join('\r\n'),
  );

let spamd: Spamd;

useSpamd((s) => (spamd = s));

test('spamd scores a real spam message above 5 and names the rules that fired', async () => {
  const scorer = createSpamdScorer({ host: spamd.host, port: spamd.port, timeoutMs: 30_000 });
  const s = await scorer.score(readFileSync(SPAM));
  assert.ok(s && s.score >= 5, `score ${s?.score}`);
  assert.equal(s.required, 5);
  assert.ok(s.rules.length > 0 && s.rules.every((r) => /^[A-Z0-9_]+$/.test(r)), s.rules.join(','));
  assert.match(scorer.describe, /^spamd 127\.0\.0\.1:\d+$/);
});

test("GTUBE scores as spam; a customer's question does not", async () => {
  const scorer = createSpamdScorer({ host: spamd.host, port: spamd.port, timeoutMs: 30_000 });
  const gtube = await scorer.score(mail('Test', `This is the GTUBE, the\nGeneric Test for Unsolicited Bulk Email\n\n${GTUBE}\n`));
  assert.ok(gtube && gtube.score >= 1000 && gtube.rules.includes('GTUBE'), JSON.stringify(gtube));
  const ham = await scorer.score(
    mail(
      'Frage zu meiner Rechnung RE-2024-0117',
      'Guten Tag,\n\nauf meiner Rechnung ist der Betrag doppelt abgebucht worden. Können Sie das prüfen?\n\nViele Grüße\nErika Mustermann',
    ),
  );
  assert.ok(ham && ham.score < 5, JSON.stringify(ham));
});

test('a message over spamc’s size limit is not sent: no score, no error', async () => {
  const scorer = createSpamdScorer({ host: spamd.host, port: spamd.port, timeoutMs: 30_000 });
  assert.equal(await scorer.score(Buffer.alloc(MAX_SPAMD_BYTES + 1, 0x41)), null);
});

test('nobody listening: rejects at once, naming the filter', async () => {
  const scorer = createSpamdScorer({ host: '127.0.0.1', port: await freePort(), timeoutMs: 30_000 });
  await assert.rejects(scorer.score(mail('x', 'y')), /^Error: spamd 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
});

test('a server that never answers: rejects after the timeout', async () => {
  const silent: Server = createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  try {
    const port = (silent.address() as { port: number }).port;
    const scorer = createSpamdScorer({ host: '127.0.0.1', port, timeoutMs: 300 });
    await assert.rejects(scorer.score(mail('x', 'y')), /no answer within 300 ms/);
  } finally {
    silent.close();
  }
});

test("answers that are not spamd's are refused with their first line", () => {
  assert.throws(() => parseSpamdAnswer('HTTP/1.1 400 Bad Request\r\n\r\n'), /spamd answered "HTTP\/1\.1 400 Bad Request"/);
  assert.throws(() => parseSpamdAnswer('SPAMD/1.1 76 Bad header line\r\n\r\n'), /spamd answered 76 Bad/);
  assert.throws(() => parseSpamdAnswer('SPAMD/1.1 0 EX_OK\r\nContent-length: 0\r\n\r\n'), /without a Spam: line/);
  assert.deepEqual(parseSpamdAnswer('SPAMD/1.1 0 EX_OK\r\nContent-length: 21\r\nSpam: True ; 15.2 / 5.0\r\n\r\nGTUBE,MISSING_DATE'), {
    score: 15.2,
    required: 5,
    rules: ['GTUBE', 'MISSING_DATE'],
  });
});

test('TELL teaches the Bayes database once: the same message again as the same class changes nothing', async () => {
  const learner = createSpamdLearner({ host: spamd.host, port: spamd.port, timeoutMs: 30_000 });
  const ham = mail('Rechnung 2026-114', 'Guten Tag, anbei die Frage zu unserer Rechnung vom Mai. Viele Grüße, Erika');
  assert.equal(await learner.learn(ham, 'ham'), 'learned');
  assert.equal(await learner.learn(ham, 'ham'), 'known', 'a retry learns nothing twice');
  assert.equal(await learner.learn(readFileSync(SPAM), 'spam'), 'learned');
  assert.ok(
    readdirSync(path.join(spamd.dir, 'bayes')).some((f) => f.startsWith('bayes_seen')),
    'bayes_seen written',
  );
});

test('learning refused or unreachable: rejects with the reason', async () => {
  assert.throws(() => parseTellAnswer('SPAMD/1.1 77 EX_NOPERM\r\n\r\n'), /77 EX_NOPERM \(started without --allow-tell\?\)/);
  assert.equal(parseTellAnswer('SPAMD/1.1 0 EX_OK\r\nDidSet: local\r\n\r\n'), 'learned');
  const nobody = createSpamdLearner({ host: '127.0.0.1', port: await freePort(), timeoutMs: 30_000 });
  await assert.rejects(nobody.learn(mail('x', 'y'), 'spam'), /^Error: spamd 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
});
