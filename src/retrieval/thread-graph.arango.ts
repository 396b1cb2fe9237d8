import { FAILURE_TYPES } from '../platform/contract';
import { createHash } from 'node:crypto';
import { Database } from 'arangojs';
import { HttpError, ResponseTimeoutError, isArangoError, isNetworkError } from 'arangojs/errors';
import { DependencyError, EmailRagError, TransientError } from '../platform/errors';
import { classifyHttpStatus } from '../platform/http-errors';
import { organisationDomain } from './organisation';
import type { GraphEmail, RelatedEmail, RelatedQuery, ThreadGraph } from './thread-graph.port';

export interface ArangoGraphSettings {
  url: string;
  databaseName: string;
  username: string;
  password: string;
  /** Per request; arangojs waits forever by default. */
  timeoutMs?: number;
}

const VERTEX_COLLECTIONS = ['people', 'organisations', 'threads', 'emails'] as const;
const EDGE_COLLECTIONS = ['sent', 'received', 'replied_to', 'in_thread', 'works_at'] as const;
type CollectionName = (typeof VERTEX_COLLECTIONS)[number] | (typeof EDGE_COLLECTIONS)[number];

const ERROR_DUPLICATE_NAME = 1207;

// The test double recognises these two texts verbatim (whitespace aside): change both together.
const SAME_SENDER_QUERY = `WITH people, emails
FOR e IN 1..1 OUTBOUND @person sent
  FILTER e.account == @account AND e.mailbox == @mailbox AND e.direction == 'in' AND e.email_id != @emailId
  SORT e.date DESC, e.email_id DESC
  LIMIT @limit
  RETURN e.email_id`;

const SAME_ORGANISATION_QUERY = `WITH people, emails, organisations
FOR p IN 1..1 INBOUND @organisation works_at
  FILTER p._id != @person
  FOR e IN 1..1 OUTBOUND p sent
  FILTER e.account == @account AND e.mailbox == @mailbox AND e.direction == 'in' AND e.email_id != @emailId
  SORT e.date DESC, e.email_id DESC
  LIMIT @limit
  RETURN e.email_id`;

// Erasure: the double recognises these two texts verbatim as well.
const FORGET_EDGES_QUERY = `FOR e IN @@edges
  FILTER e._from IN @handles OR e._to IN @handles
  REMOVE e IN @@edges`;

const FORGET_VERTICES_QUERY = `FOR k IN @keys
  REMOVE k IN @@vertices OPTIONS { ignoreErrors: true }`;

/** A key-safe, fixed-length `_key` for any natural key (addresses and ids may hold `/` or spaces). */
export { organisationDomain };

export function graphKey(natural: string): string {
  return createHash('sha256').update(natural).digest('hex').slice(0, 40);
}

export function personKey(address: string): string {
  return graphKey(`person\u0000${address.trim().toLowerCase()}`);
}

/** The organisation of an address: its mail domain, unless it is a public mail provider. */

function organisationKey(domain: string): string {
  return /^[a-z0-9][a-z0-9.-]{0,200}$/.test(domain) ? domain : graphKey(`organisation\u0000${domain}`);
}

function isConnectionFailure(err: unknown): boolean {
  return isNetworkError(err) || (err instanceof TypeError && /fetch failed/i.test(err.message));
}

/** Maps what arangojs throws onto the product's error classes. */
function classifyArangoError(err: unknown, doing: string): Error {
  if (err instanceof EmailRagError) return err;
  if (isArangoError(err)) {
    const retryAfter = err.response?.headers.get('retry-after');
    return classifyHttpStatus('arango', err.code ?? 500, `${doing}: ${err.errorMessage} (errorNum ${err.errorNum})`, retryAfter, err);
  }
  if (err instanceof HttpError) {
    return classifyHttpStatus('arango', err.code, `${doing}: ${err.message}`, err.response.headers.get('retry-after'), err);
  }
  if (err instanceof ResponseTimeoutError) {
    return new TransientError(`ArangoDB did not answer in time while ${doing}`, FAILURE_TYPES.arangoTimeout, { cause: err });
  }
  if (isConnectionFailure(err)) {
    const e = err as Error & { cause?: { message?: string } };
    const why = e.cause?.message ? `${e.message} (${e.cause.message})` : e.message;
    return new DependencyError(`ArangoDB unreachable while ${doing}: ${why}`, FAILURE_TYPES.arangoUnavailable, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

type Doc = { _key: string } & Record<string, unknown>;

/**
 * The sender/thread graph in ArangoDB. Database and collections are created on first use;
 * every write is an upsert on a key derived from the natural key, so recording is idempotent.
 */
export function createArangoGraph(settings: ArangoGraphSettings): ThreadGraph {
  const db = new Database({
    url: settings.url,
    databaseName: settings.databaseName,
    auth: { username: settings.username, password: settings.password },
    // Temporal owns every retry.
    maxRetries: false,
    timeout: settings.timeoutMs,
  });
  let setup: Promise<void> | undefined;

  async function call<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw classifyArangoError(err, doing);
    }
  }

  /** Runs `fn`, treating "already exists" as success: another worker may have been first. */
  async function createIfMissing(doing: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (isArangoError(err) && err.errorNum === ERROR_DUPLICATE_NAME) return;
      throw classifyArangoError(err, doing);
    }
  }

  async function setUp(): Promise<void> {
    if (!(await call('checking the database', () => db.exists()))) {
      await createIfMissing('creating the database', () => db.database('_system').createDatabase(settings.databaseName));
    }
    const existing = new Set((await call('listing collections', () => db.listCollections())).map((c) => c.name));
    for (const name of VERTEX_COLLECTIONS) {
      if (!existing.has(name)) await createIfMissing(`creating collection ${name}`, () => db.createCollection(name));
    }
    for (const name of EDGE_COLLECTIONS) {
      if (!existing.has(name)) await createIfMissing(`creating edge collection ${name}`, () => db.createEdgeCollection(name));
    }
  }

  function ready(): Promise<void> {
    setup ??= setUp().catch((err: unknown) => {
      setup = undefined;
      throw err;
    });
    return setup;
  }

  async function upsert(collection: CollectionName, docs: Doc[]): Promise<void> {
    if (docs.length === 0) return;
    const results = await call(`writing ${collection}`, () => db.collection(collection).saveAll(docs, { overwriteMode: 'update' }));
    // An array save answers per document and does not throw; the first failure speaks for all.
    for (const r of results as Array<{ error?: boolean; errorNum?: number; errorMessage?: string }>) {
      if (r.error) {
        const status = r.errorNum === 1200 || r.errorNum === 1210 ? 409 : 400;
        throw classifyHttpStatus('arango', status, `writing ${collection}: ${r.errorMessage ?? 'failed'} (errorNum ${r.errorNum})`);
      }
    }
  }

  function edge(from: string, to: string): Doc {
    return { _key: graphKey(`${from}>${to}`), _from: from, _to: to };
  }

  return {
    async record(e: GraphEmail): Promise<void> {
      await ready();
      const emailId = `emails/${graphKey(`email\u0000${e.emailId}`)}`;
      const account = e.account ?? '';
      const threadId = `threads/${graphKey(`thread\u0000${account}\u0000${e.mailbox}\u0000${e.threadId}`)}`;
      const senderAddress = e.fromAddress.trim().toLowerCase();
      const recipients = [...new Set(e.toAddresses.map((a) => a.trim().toLowerCase()).filter((a) => a.length > 0))];

      const people = new Map<string, Doc>();
      const organisations = new Map<string, Doc>();
      const worksAt: Doc[] = [];
      for (const address of [senderAddress, ...recipients]) {
        if (!address || people.has(address)) continue;
        const doc: Doc = { _key: personKey(address), address };
        // Only the sender's display name is known; a recipient's stays as it was.
        if (address === senderAddress && e.fromName.trim()) doc.name = e.fromName.trim();
        people.set(address, doc);
        const domain = organisationDomain(address);
        if (domain) {
          const org = { _key: organisationKey(domain), domain };
          organisations.set(domain, org);
          worksAt.push(edge(`people/${doc._key}`, `organisations/${org._key}`));
        }
      }
      const sender = `people/${personKey(senderAddress)}`;

      await upsert('people', [...people.values()]);
      await upsert('organisations', [...organisations.values()]);
      await upsert('threads', [{ _key: threadId.slice('threads/'.length), thread_id: e.threadId, account, mailbox: e.mailbox }]);
      await upsert('emails', [
        {
          _key: emailId.slice('emails/'.length),
          email_id: e.emailId,
          thread_id: e.threadId,
          account,
          mailbox: e.mailbox,
          direction: e.direction,
          from_address: senderAddress,
          subject: e.subject,
          date: e.date ? e.date.toISOString() : null,
        },
      ]);
      if (senderAddress) await upsert('sent', [edge(sender, emailId)]);
      await upsert(
        'received',
        recipients.map((a) => edge(emailId, `people/${personKey(a)}`)),
      );
      await upsert('in_thread', [edge(emailId, threadId)]);
      await upsert('works_at', worksAt);
      if (e.inReplyToEmailId) {
        await upsert('replied_to', [edge(emailId, `emails/${graphKey(`email\u0000${e.inReplyToEmailId}`)}`)]);
      }
    },

    async forget(emailIds: string[], addresses: string[]): Promise<void> {
      if (emailIds.length === 0 && addresses.length === 0) return;
      await ready();
      const emailKeys = emailIds.map((id) => graphKey(`email\u0000${id}`));
      const personKeys = addresses.map((a) => personKey(a));
      const handles = [...emailKeys.map((k) => `emails/${k}`), ...personKeys.map((k) => `people/${k}`)];
      // Edges first: a vertex never goes while an edge still points at it.
      for (const edges of EDGE_COLLECTIONS) {
        await call(`forgetting ${edges} edges`, async () => (await db.query(FORGET_EDGES_QUERY, { '@edges': edges, handles })).all());
      }
      for (const [vertices, keys] of [
        ['emails', emailKeys],
        ['people', personKeys],
      ] as const) {
        if (keys.length === 0) continue;
        await call(`forgetting ${vertices}`, async () => (await db.query(FORGET_VERTICES_QUERY, { '@vertices': vertices, keys })).all());
      }
    },

    async related(e: RelatedQuery, limit: number): Promise<RelatedEmail[]> {
      if (limit <= 0 || !e.fromAddress.trim()) return [];
      await ready();
      const base = {
        person: `people/${personKey(e.fromAddress)}`,
        account: e.account ?? '',
        mailbox: e.mailbox,
        emailId: e.emailId,
        limit,
      };
      const run = (doing: string, query: string, bindVars: Record<string, unknown>) =>
        call(doing, async () => (await db.query<string>(query, bindVars, { batchSize: Math.max(limit, 1) })).all());

      const sameSender = await run('finding mail of the same sender', SAME_SENDER_QUERY, base);
      const domain = e.includeOrganisation === false ? null : organisationDomain(e.fromAddress);
      const sameOrganisation = domain
        ? await run('finding mail of the same organisation', SAME_ORGANISATION_QUERY, {
            ...base,
            organisation: `organisations/${organisationKey(domain)}`,
          })
        : [];

      const seen = new Set<string>();
      const out: RelatedEmail[] = [];
      for (const [relation, ids] of [
        ['same_sender', sameSender],
        ['same_organisation', sameOrganisation],
      ] as const) {
        for (const emailId of ids) {
          if (seen.has(emailId)) continue;
          seen.add(emailId);
          out.push({ emailId, relation });
        }
      }
      return out.slice(0, limit);
    },
  };
}
