import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { QdrantClient } from '@qdrant/js-client-rest' with { 'resolution-mode': 'import' };
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { createQdrantIndex, passagePointId, type QdrantIndex } from '../../src/retrieval/vector-index.qdrant';
import { DependencyError, PermanentError, TransientError } from '../../src/platform/errors';
import type { Embedder } from '../../src/retrieval/embedder.port';
import type { IndexableEmail } from '../../src/retrieval/vector-index.port';
import { startEmbeddingsDouble, type EmbeddingsDouble } from '../doubles/embeddings-double';
import { startQdrantDouble, type QdrantDouble } from '../doubles/qdrant-double';

let embeddings: EmbeddingsDouble;
let embedder: Embedder;
before(async () => {
  embeddings = await startEmbeddingsDouble({ dims: 64 });
  embedder = createOpenAiEmbedder({ baseUrl: embeddings.baseUrl, apiKey: 'k', model: 'bag-of-words-64', timeoutMs: 5_000 });
});
after(() => embeddings.stop());

function mail(over: Partial<IndexableEmail> & Pick<IndexableEmail, 'emailId' | 'text'>): IndexableEmail {
  return {
    threadId: `thread-${over.emailId}`,
    mailbox: 'INBOX',
    direction: 'in',
    fromAddress: 'kunde@example.com',
    subject: '',
    date: new Date('2024-05-01T10:00:00Z'),
    ...over,
  };
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected a rejection');
}

let serial = 0;

/** The same behaviour, against the double always and against a real server when one is configured. */
function qdrantSuite(
  backend: string,
  start: () => Promise<{ url: string; apiKey?: string; double?: QdrantDouble; stop(): Promise<void> }>,
  skip?: string,
) {
  describe(`Qdrant index (${backend})`, { skip }, () => {
    let server: Awaited<ReturnType<typeof start>>;
    let client: QdrantClient;
    const created: string[] = [];

    before(async () => {
      server = await start();
      const { QdrantClient: Client } = await import('@qdrant/js-client-rest');
      client = new Client({ url: server.url, apiKey: server.apiKey, checkCompatibility: false });
    });
    after(async () => {
      try {
        for (const name of created) await client.deleteCollection(name).catch(() => undefined);
        assert.deepEqual(server.double?.unhandled ?? [], [], 'the adapter used only what the double implements');
      } finally {
        await server.stop();
      }
    });

    function index(over: { embedder?: Embedder; collection?: string } = {}): QdrantIndex & { collection: string } {
      const collection = over.collection ?? `emailrag_test_${process.pid}_${++serial}`;
      created.push(collection);
      const idx = createQdrantIndex({ url: server.url, apiKey: server.apiKey, collection, embedder: over.embedder ?? embedder });
      return Object.assign(idx, { collection });
    }
    const count = async (collection: string, emailId: string) =>
      (await client.count(collection, { filter: { must: [{ key: 'email_id', match: { value: emailId } }] }, exact: true })).count;

    test('the collection is created once, with the embedding size, Cosine and keyword indexes', async () => {
      const idx = index();
      await idx.index(mail({ emailId: 'a', subject: 'Erste', text: 'Hallo, meine Rechnung stimmt nicht.' }));
      await idx.index(mail({ emailId: 'b', subject: 'Zweite', text: 'Hello, my parcel is late.' }));
      const info = await client.getCollection(idx.collection);
      assert.deepEqual(info.config.params.vectors, { ...(info.config.params.vectors as object), size: 64, distance: 'Cosine' });
      for (const field of ['email_id', 'thread_id', 'account', 'mailbox', 'direction', 'from_address', 'correspondent', 'organisation']) {
        assert.equal(info.payload_schema[field]?.data_type, 'keyword', `${field} has a keyword index`);
      }
      // A second worker process meets the existing collection and creates nothing.
      await index({ collection: idx.collection }).ensureCollection();
      if (server.double) {
        const creates = server.double.requests.filter((r) => r.method === 'PUT' && r.path === `/collections/${idx.collection}`);
        assert.equal(creates.length, 1);
        const indexes = server.double.requests.filter((r) => r.path.startsWith(`/collections/${idx.collection}/index`));
        assert.equal(indexes.length, 9, 'eight keyword fields and idx, each once');
      }
    });

    test('re-indexing overwrites the same points; shorter text prunes old passages', async () => {
      const idx = index();
      const long = ['Absatz eins über die Rechnung.', 'Absatz zwei über die Lieferung.', 'Absatz drei über den Vertrag.'].map((p) =>
        `${p} `.repeat(30).trim(),
      );
      const email = mail({ emailId: 'lang', subject: 'Viele Fragen', text: long.join('\n\n') });
      await idx.index(email);
      const first = await count(idx.collection, 'lang');
      assert.ok(first >= 3, `several passages (${first})`);
      await idx.index(email);
      assert.equal(await count(idx.collection, 'lang'), first, 'no duplicates');
      await idx.index({ ...email, text: 'Nur noch eine kurze Frage.' });
      assert.equal(await count(idx.collection, 'lang'), 1);
      const { points } = await client.scroll(idx.collection, { filter: { must: [{ key: 'email_id', match: { value: 'lang' } }] } });
      const [point] = points;
      assert.equal(point?.id, passagePointId('lang', 0), 'deterministic point id');
      assert.match(String(point?.payload?.text), /kurze Frage/);
      assert.equal(point?.payload?.idx, 0);
      assert.equal(point?.payload?.date, '2024-05-01T10:00:00.000Z');
      assert.equal(point?.payload?.language, 'de');
    });

    test('retrieval: the same thread first, then the most similar other email; never another mailbox', async () => {
      const idx = index();
      const history = [
        mail({
          emailId: 't1',
          threadId: 'T',
          subject: 'Rechnung doppelt abgebucht',
          text: 'Guten Tag, die Rechnung 4711 wurde doppelt abgebucht.',
          date: new Date('2024-05-01T08:00:00Z'),
        }),
        mail({
          emailId: 'sim-de',
          subject: 'Abbuchung doppelt',
          text: 'Hallo, der Betrag der Rechnung wurde zweimal abgebucht. Bitte erstatten Sie die doppelte Abbuchung.',
        }),
        mail({
          emailId: 'sim-en',
          subject: 'Parcel delayed',
          text: 'Hello, my parcel delivery is delayed by two weeks. Where is my parcel?',
        }),
        mail({
          emailId: 'other-box',
          mailbox: 'Vertrieb',
          subject: 'Rechnung doppelt abgebucht',
          text: 'Die Rechnung wurde doppelt abgebucht.',
        }),
        mail({ emailId: 'other-box-thread', mailbox: 'Vertrieb', threadId: 'T', subject: 'Rechnung', text: 'Rechnung doppelt.' }),
      ];
      for (const e of history) await idx.index(e);
      const incoming = mail({
        emailId: 'new',
        threadId: 'T',
        subject: 'Re: Rechnung doppelt abgebucht',
        text: 'Die Rechnung wurde immer noch doppelt abgebucht, bitte erstatten.',
      });
      await idx.index(incoming);

      const items = await idx.retrieve(incoming, 5);
      assert.deepEqual(items[0], {
        sourceId: 't1',
        kind: 'thread',
        // Passages keep their line breaks (the subject is the first paragraph).
        text: 'Rechnung doppelt abgebucht\n\nGuten Tag, die Rechnung 4711 wurde doppelt abgebucht.',
        title: 'Rechnung doppelt abgebucht',
      });
      const similar = items.filter((i) => i.kind === 'similar').map((i) => i.sourceId);
      assert.equal(similar[0], 'sim-de', 'the German invoice mail is the nearest');
      assert.ok(!items.some((i) => i.sourceId.startsWith('other-box')), 'nothing from another mailbox');
      assert.ok(!items.some((i) => i.sourceId === 'new'), 'never the email itself');
      assert.ok(!similar.includes('t1'), 'the thread is not repeated as "similar"');

      const english = mail({ emailId: 'q-en', subject: 'Where is my parcel?', text: 'My parcel delivery is delayed, please help.' });
      const found = await idx.retrieve(english, 1);
      assert.deepEqual(
        found.map((i) => [i.kind, i.sourceId]),
        [['similar', 'sim-en']],
        'English asks find English',
      );
      const otherBox = await idx.retrieve({ ...incoming, emailId: 'q-vertrieb', mailbox: 'Vertrieb' }, 5);
      assert.ok(otherBox.length > 0 && otherBox.every((i) => i.sourceId.startsWith('other-box')), 'each mailbox sees only its own mail');
    });

    test('an embedding model of another size is refused as a configuration error', async () => {
      const idx = index();
      await idx.ensureCollection();
      const small = await startEmbeddingsDouble({ dims: 32 });
      try {
        const other = createOpenAiEmbedder({ baseUrl: small.baseUrl, apiKey: 'k', model: 'bag-of-words-32', timeoutMs: 5_000 });
        const err = await rejection(index({ collection: idx.collection, embedder: other }).index(mail({ emailId: 'x', text: 'Hallo' })));
        assert.ok(err instanceof PermanentError);
        assert.equal(err.code, 'QDRANT_VECTOR_SIZE_MISMATCH');
      } finally {
        await small.stop();
      }
    });

    test('an unreachable Qdrant is a DependencyError (degrade), not a crash', async () => {
      const gone = await startQdrantDouble();
      await gone.stop();
      const idx = createQdrantIndex({ url: gone.url, collection: 'nowhere', embedder });
      const err = await rejection(idx.index(mail({ emailId: 'x', text: 'Hallo Welt' })));
      assert.ok(err instanceof DependencyError, String(err));
      assert.equal(err.code, 'QDRANT_UNAVAILABLE');
    });
  });
}

qdrantSuite('test double', async () => {
  const double = await startQdrantDouble();
  return { url: double.url, double, stop: () => double.stop() };
});

qdrantSuite(
  'real server',
  () =>
    Promise.resolve({ url: process.env.QDRANT_URL ?? '', apiKey: process.env.QDRANT_API_KEY || undefined, stop: () => Promise.resolve() }),
  process.env.QDRANT_URL ? undefined : 'QDRANT_URL not set',
);

describe('Qdrant failures (test double)', () => {
  let double: QdrantDouble;
  before(async () => {
    double = await startQdrantDouble();
  });
  after(() => double.stop());

  test('a server going down mid-run gives DependencyError; back up, it works again', async () => {
    const idx = createQdrantIndex({ url: double.url, collection: 'flaky', embedder });
    const email = mail({ emailId: 'x', text: 'Die Lieferung ist verspätet.' });
    await idx.index(email);
    double.down(true);
    const err = await rejection(idx.retrieve(email, 3));
    assert.ok(err instanceof DependencyError, String(err));
    assert.equal(err.code, 'QDRANT_UNAVAILABLE');
    double.down(false);
    await idx.index(email);
  });

  test('a collection dropped behind the worker is set up again on the next attempt', async () => {
    const idx = createQdrantIndex({ url: double.url, collection: 'dropped', embedder });
    const email = mail({ emailId: 'x', text: 'Die Lieferung ist verspätet.' });
    await idx.index(email);
    await fetch(`${double.url}/collections/dropped`, { method: 'DELETE' });
    const err = await rejection(idx.index(email));
    assert.ok(err instanceof TransientError, String(err));
    assert.equal(err.code, 'QDRANT_COLLECTION_MISSING');
    await idx.index(email);
    assert.equal((await idx.retrieve({ ...email, emailId: 'y', threadId: 'other' }, 3))[0]?.sourceId, 'x');
  });

  test('HTTP 503 and 429 are transient, 400 permanent; embedding errors pass through unchanged', async () => {
    const idx = createQdrantIndex({ url: double.url, collection: 'statuses', embedder });
    const email = mail({ emailId: 'x', text: 'Hallo' });
    await idx.index(email);
    for (const [status, kind] of [
      [503, TransientError],
      [429, TransientError],
      [400, PermanentError],
    ] as const) {
      double.failNext(status);
      const err = await rejection(idx.retrieve(email, 3));
      assert.ok(err instanceof kind, `${status}: ${String(err)}`);
      assert.equal((err as TransientError).code, `QDRANT_HTTP_${status}`);
    }
    embeddings.script({ kind: 'status', status: 503 });
    const embedding = await rejection(idx.index(email));
    assert.equal((embedding as TransientError).code, 'EMBEDDING_HTTP_503');
  });
});
