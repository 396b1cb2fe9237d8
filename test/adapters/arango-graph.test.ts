import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Database } from 'arangojs';
import {
  createArangoGraph,
  graphKey,
  organisationDomain,
  personKey,
  type ArangoGraphSettings,
} from '../../src/retrieval/thread-graph.arango';
import { DependencyError, PermanentError, TransientError } from '../../src/platform/errors';
import type { GraphEmail } from '../../src/retrieval/thread-graph.port';
import { startArangoDouble, type ArangoDouble } from '../doubles/arango-double';

const VERTICES = ['people', 'organisations', 'threads', 'emails'];
const EDGES = ['sent', 'received', 'replied_to', 'in_thread', 'works_at'];

function mail(over: Partial<GraphEmail> & Pick<GraphEmail, 'emailId' | 'fromAddress'>): GraphEmail {
  return {
    threadId: `thread-${over.emailId}`,
    mailbox: 'INBOX',
    direction: 'in',
    fromName: '',
    toAddresses: ['support@shop.example'],
    subject: 'Frage',
    date: new Date('2024-05-01T10:00:00Z'),
    inReplyToEmailId: null,
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

interface Backend {
  url: string;
  username: string;
  password: string;
  double?: ArangoDouble;
  stop(): Promise<void>;
}

/** The same behaviour, against the double always and against a real server when one is configured. */
function arangoSuite(name: string, start: () => Promise<Backend>, skip?: string) {
  describe(`Arango graph (${name})`, { skip }, () => {
    let server: Backend;
    let system: Database;
    const databases: string[] = [];

    before(async () => {
      server = await start();
      system = new Database({ url: server.url, databaseName: '_system', auth: { username: server.username, password: server.password } });
    });
    after(async () => {
      try {
        for (const db of databases) await system.dropDatabase(db).catch(() => undefined);
        assert.deepEqual(server.double?.unhandled ?? [], [], 'the adapter used only what the double implements');
      } finally {
        system.close();
        await server.stop();
      }
    });

    function settings(databaseName = `emailrag_test_${process.pid}_${++serial}`): ArangoGraphSettings {
      if (!databases.includes(databaseName)) databases.push(databaseName);
      return { url: server.url, databaseName, username: server.username, password: server.password, timeoutMs: 5_000 };
    }
    async function counts(databaseName: string): Promise<Record<string, number>> {
      const db = system.database(databaseName);
      const out: Record<string, number> = {};
      for (const c of [...VERTICES, ...EDGES]) out[c] = (await db.collection(c).count()).count;
      return out;
    }

    test('database and collections are created on first use, once, with the right types', async () => {
      const s = settings();
      await createArangoGraph(s).record(mail({ emailId: 'e1', fromAddress: 'anna@acme.example' }));
      const listed = await system.database(s.databaseName).listCollections();
      const types = Object.fromEntries(listed.map((c) => [c.name, c.type]));
      for (const v of VERTICES) assert.equal(types[v], 2, `${v} is a document collection`);
      for (const e of EDGES) assert.equal(types[e], 3, `${e} is an edge collection`);

      // Another worker process: finds everything in place and creates nothing.
      const mark = server.double?.requests.length ?? 0;
      await createArangoGraph(s).record(mail({ emailId: 'e2', fromAddress: 'anna@acme.example' }));
      const creations = (server.double?.requests.slice(mark) ?? []).filter(
        (r) => r.method === 'POST' && /_api\/(collection|database)$/.test(r.path),
      );
      assert.deepEqual(creations, []);
    });

    test('recording the same email twice leaves one vertex and one edge of each', async () => {
      const s = settings();
      const graph = createArangoGraph(s);
      const e = mail({
        emailId: 'email-INBOX-1-42',
        threadId: '<abc@mail.acme.example>',
        fromAddress: 'Anna.Berg@ACME.example',
        fromName: 'Anna Berg',
        toAddresses: ['support@shop.example', 'billing@shop.example'],
        inReplyToEmailId: 'email-INBOX-1-40',
      });
      await graph.record(e);
      const once = await counts(s.databaseName);
      await graph.record(e);
      await createArangoGraph(s).record({ ...e, fromName: '' });
      assert.deepEqual(await counts(s.databaseName), once);
      assert.deepEqual(once, {
        people: 3,
        organisations: 2,
        threads: 1,
        emails: 1,
        sent: 1,
        received: 2,
        replied_to: 1,
        in_thread: 1,
        works_at: 3,
      });
      const anna = await system.database(s.databaseName).collection('people').document(personKey('anna.berg@acme.example'));
      assert.equal(anna.address, 'anna.berg@acme.example');
      assert.equal(anna.name, 'Anna Berg', 'a later mail without display name does not erase it');
      const stored = await system.database(s.databaseName).collection('emails').document(graphKey('email\u0000email-INBOX-1-42'));
      assert.equal(stored.date, '2024-05-01T10:00:00.000Z');
    });

    test('related: same sender newest first, then the same organisation; same mailbox only, never itself', async () => {
      const graph = createArangoGraph(settings());
      const day = (d: number) => new Date(Date.UTC(2024, 0, d));
      for (const e of [
        mail({ emailId: 'anna-old', fromAddress: 'anna@acme.example', date: day(1) }),
        mail({ emailId: 'anna-new', fromAddress: 'Anna@ACME.example', date: day(20) }),
        mail({ emailId: 'anna-now', fromAddress: 'anna@acme.example', date: day(25) }),
        mail({ emailId: 'bob', fromAddress: 'bob@acme.example', date: day(10) }),
        mail({ emailId: 'anna-other-box', fromAddress: 'anna@acme.example', mailbox: 'Vertrieb', date: day(30) }),
        mail({ emailId: 'bob-other-box', fromAddress: 'bob@acme.example', mailbox: 'Vertrieb', date: day(30) }),
        mail({ emailId: 'carol', fromAddress: 'carol@other.example', date: day(15) }),
        mail({ emailId: 'gmail-1', fromAddress: 'x.muster@gmail.com', date: day(2) }),
        mail({ emailId: 'gmail-2', fromAddress: 'y.muster@gmail.com', date: day(3) }),
      ]) {
        await graph.record(e);
      }
      const related = await graph.related({ emailId: 'anna-now', fromAddress: 'anna@acme.example', mailbox: 'INBOX' }, 10);
      assert.deepEqual(related, [
        { emailId: 'anna-new', relation: 'same_sender' },
        { emailId: 'anna-old', relation: 'same_sender' },
        { emailId: 'bob', relation: 'same_organisation' },
      ]);
      assert.deepEqual(
        await graph.related({ emailId: 'anna-now', fromAddress: 'anna@acme.example', mailbox: 'INBOX' }, 2),
        related.slice(0, 2),
      );
      assert.deepEqual(await graph.related({ emailId: 'bob-other-box', fromAddress: 'bob@acme.example', mailbox: 'Vertrieb' }, 10), [
        { emailId: 'anna-other-box', relation: 'same_organisation' },
      ]);
      assert.deepEqual(
        await graph.related({ emailId: 'gmail-2', fromAddress: 'y.muster@gmail.com', mailbox: 'INBOX' }, 10),
        [],
        'a public mail provider is no organisation',
      );
      assert.deepEqual(await graph.related({ emailId: 'n', fromAddress: 'neu@unbekannt.example', mailbox: 'INBOX' }, 10), []);
      assert.equal(organisationDomain('x@GMX.de'), null);
    });

    test('related: never another account, never our outgoing replies; the organisation only when asked', async () => {
      const graph = createArangoGraph(settings());
      const day = (d: number) => new Date(Date.UTC(2024, 1, d));
      for (const e of [
        mail({ emailId: 'acc-anna-1', fromAddress: 'anna@acct.example', account: 'a@shop.example', date: day(1) }),
        mail({ emailId: 'acc-bob-1', fromAddress: 'bob@acct.example', account: 'a@shop.example', date: day(2) }),
        mail({ emailId: 'acc-anna-other', fromAddress: 'anna@acct.example', account: 'b@shop.example', date: day(3) }),
        // A mail whose sender is the customer's address but that we sent (direction out) is ours.
        mail({ emailId: 'acc-out', fromAddress: 'anna@acct.example', direction: 'out', account: 'a@shop.example', date: day(4) }),
      ]) {
        await graph.record(e);
      }
      const q = { emailId: 'acc-anna-now', fromAddress: 'anna@acct.example', account: 'a@shop.example', mailbox: 'INBOX' };
      assert.deepEqual(await graph.related(q, 10), [
        { emailId: 'acc-anna-1', relation: 'same_sender' },
        { emailId: 'acc-bob-1', relation: 'same_organisation' },
      ]);
      assert.deepEqual(await graph.related({ ...q, includeOrganisation: false }, 10), [{ emailId: 'acc-anna-1', relation: 'same_sender' }]);
      assert.deepEqual(await graph.related({ ...q, account: 'b@shop.example' }, 10), [
        { emailId: 'acc-anna-other', relation: 'same_sender' },
      ]);
      assert.deepEqual(await graph.related({ ...q, account: 'c@shop.example' }, 10), []);
    });

    test('wrong credentials are a permanent configuration error', async () => {
      const err = await rejection(
        createArangoGraph({ ...settings(), password: 'wrong' }).record(mail({ emailId: 'x', fromAddress: 'a@b.example' })),
      );
      assert.ok(err instanceof PermanentError, String(err));
      assert.equal(err.code, 'ARANGO_HTTP_401');
    });

    test('an unreachable ArangoDB is a DependencyError (degrade)', async () => {
      const gone = await startArangoDouble({ username: 'root', password: '' });
      await gone.stop();
      const graph = createArangoGraph({ ...settings(), url: gone.url });
      const err = await rejection(graph.related({ emailId: 'x', fromAddress: 'a@b.example', mailbox: 'INBOX' }, 3));
      assert.ok(err instanceof DependencyError, String(err));
      assert.equal(err.code, 'ARANGO_UNAVAILABLE');
    });
  });
}

const credentials = { username: 'root', password: 'test-secret' };
arangoSuite('test double', async () => {
  const double = await startArangoDouble(credentials);
  return { url: double.url, ...credentials, double, stop: () => double.stop() };
});

arangoSuite(
  'real server',
  () =>
    Promise.resolve({
      url: process.env.ARANGO_URL ?? '',
      username: process.env.ARANGO_USER || 'root',
      password: process.env.ARANGO_PASSWORD ?? '',
      stop: () => Promise.resolve(),
    }),
  process.env.ARANGO_URL ? undefined : 'ARANGO_URL not set',
);

describe('Arango failures (test double)', () => {
  let double: ArangoDouble;
  before(async () => {
    double = await startArangoDouble(credentials);
  });
  after(() => double.stop());

  test('a server going down mid-run gives DependencyError; back up, it works again', async () => {
    const graph = createArangoGraph({ url: double.url, databaseName: 'flaky', ...credentials });
    const e = mail({ emailId: 'x', fromAddress: 'anna@acme.example' });
    await graph.record(e);
    double.down(true);
    const err = await rejection(graph.record(e));
    assert.ok(err instanceof DependencyError, String(err));
    assert.equal(err.code, 'ARANGO_UNAVAILABLE');
    double.down(false);
    await graph.record(e);
  });

  test('HTTP 503 is transient, 400 permanent', async () => {
    const graph = createArangoGraph({ url: double.url, databaseName: 'statuses', ...credentials });
    const e = mail({ emailId: 'x', fromAddress: 'anna@acme.example' });
    await graph.record(e);
    double.failNext(503);
    const unavailable = await rejection(graph.related(e, 3));
    assert.ok(unavailable instanceof TransientError, String(unavailable));
    assert.equal(unavailable.code, 'ARANGO_HTTP_503');
    double.failNext(400);
    const bad = await rejection(graph.record(e));
    assert.ok(bad instanceof PermanentError, String(bad));
    assert.equal(bad.code, 'ARANGO_HTTP_400');
  });

  test('the double refuses AQL it does not know, loudly', async () => {
    const db = new Database({ url: double.url, databaseName: 'statuses', auth: credentials });
    const err = await rejection(db.query('FOR d IN emails RETURN d'));
    assert.match(err.message, /arango double: AQL query .* is not implemented/);
    assert.equal(double.unhandled.length, 1);
    db.close();
  });
});
