/**
 * The drafter without a model files mail under the nearest category by meaning, and under
 * `general` when it comes near none: a floor on the labelled set's 63 questions with the real
 * default embedder (scripts/eval/category-eval.ts says which categories fit each question), and
 * mails about other things than the shop's against the shipped list. Deterministic: one model,
 * fixed texts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import type { Embedder } from '../../src/retrieval/embedder.port';
import { evaluateCategories } from '../../scripts/eval/category-eval';
import { readCategoryList } from '../../src/drafting/categories';
import { nearestCategory } from '../../src/drafting/category-match';
import { GENERAL_CATEGORY } from '../../src/drafting/drafting.contract';
import { questionOf } from '../../src/drafting/reply-composer';
import { startEmbedder } from '../support/services/embedder';

let server: Awaited<ReturnType<typeof startEmbedder>>;
let embedder: Embedder;

before(async () => {
  server = await startEmbedder();
  embedder = createOpenAiEmbedder({ baseUrl: server.baseUrl, apiKey: 'not-needed', model: server.model, timeoutMs: 30_000 });
});
after(async () => {
  await server?.stop();
});

test('the category fits at least 46 of the 63 labelled questions, in both languages', async () => {
  const f = await evaluateCategories(embedder);
  assert.equal(f.questions, 63);
  // Measured: 46 of 63 (en 24 of 34, de 22 of 29); the nearest whatever its distance gave 45, one text per category 41.
  assert.ok(f.right >= 46, `${f.right} of 63 right; misses: ${f.misses.map((m) => `${m.id}→${m.got}`).join(', ')}`);
  for (const [lang, x] of Object.entries(f.byLanguage)) assert.ok(x.right / x.questions >= 0.6, `${lang}: ${x.right} of ${x.questions}`);
});

/** Mails a shop's support could get that are about nothing of its list, German and English, written for this test. */
const FOREIGN = [
  ['reshape data frame', 'How do I turn a wide data frame into long format with pivot_longer when the column names hold two variables?'],
  ['lm with interaction terms', 'When I fit lm(y ~ a*b) the coefficient for a changes sign compared to lm(y ~ a). How should I read that?'],
  ['ggplot legend', 'How can I move the legend of a ggplot below the plot and remove its title?'],
  ['match on Saturday', "Does anyone know who scored the second goal in Saturday's derby?"],
  ['Rezept', 'Wie lange muss ein Sauerteigbrot bei 230 Grad backen, damit die Kruste nicht verbrennt?'],
  ['Hausaufgabe', 'Kann mir jemand erklären, warum die Ableitung von sin(x) gleich cos(x) ist?'],
] as const;

/** Mails about one of the shipped categories, with it. */
const FITTING = [
  ['delivery', 'parcel not arrived', 'My parcel was supposed to arrive last Tuesday and the tracking has not changed for a week.'],
  ['billing', 'Rechnung doppelt abgebucht', 'Sie haben die Rechnung vom März zweimal von meinem Konto abgebucht.'],
  ['account-access', "can't log in", 'I reset my password twice and still cannot log in, the two-factor code is rejected.'],
  ['contract', 'Kündigung', 'Ich möchte meinen Vertrag zum nächstmöglichen Termin kündigen.'],
] as const;

test('a mail about none of the shipped categories is general; one about a category keeps it', async () => {
  const list = readCategoryList();
  const foreign = await Promise.all(FOREIGN.map(([subject, body]) => nearestCategory(embedder, questionOf(subject, body), list)));
  // Measured: 5 of 6. "reshape data frame" stays under data-protection: its words come within 0.20–0.25 of
  // the item "Personal data" (the R-help replay's leftovers are mostly such; docs/configuration.md#categories).
  assert.ok(
    foreign.filter((c) => c === GENERAL_CATEGORY).length >= 5,
    FOREIGN.map(([subject], i) => `${subject}: ${foreign[i]}`).join(', '),
  );
  const fitting = await Promise.all(FITTING.map(([, subject, body]) => nearestCategory(embedder, questionOf(subject, body), list)));
  assert.deepEqual(
    fitting,
    FITTING.map(([category]) => category),
  );
});
