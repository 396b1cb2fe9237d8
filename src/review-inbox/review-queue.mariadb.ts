/**
 * The review queue, paged on the server: keyset pagination (no OFFSET) in the order priority, age,
 * id, and search only through indexes (migrations/022_queue_paging.sql).
 *
 * One page is two statements. The first finds the page's keys: a UNION of branches, each a range
 * scan of one index in queue order with its own LIMIT (one branch per waiting status, because an
 * index range over two statuses cannot deliver rows in priority order without sorting them all;
 * the sends in doubt, few by nature, come from send_attempts; a search adds one branch per index it
 * can use). The second reads the rows of those ≤ 51 keys by primary key.
 */
import { DRAFT_FLAGS, DRAFT_STATUS } from '../drafting';
import { NEEDS_PERSON_STATUSES, SEND_STATUS, STATUS } from '../email';
import { PRIORITIES, type Priority } from '../triage';
import { queueSearchTerms, type QueueSearchTerms } from './review-queue-search';
import { query, sqlList, type Queryable } from '../platform/pool.mariadb';

export const QUEUE_PAGE_SIZE = 50;

export interface QueueFilter {
  /** A mailbox id of the registry (emails.mailbox_id). */
  mailbox?: string;
  priority?: string;
  /** awaiting_approval, manual_review or in_doubt (a send a person must decide on). */
  status?: string;
  flag?: string;
  /** `mine`: the case's owner is `me` or `me` holds its claim; `unassigned`: the case has neither owner nor team. */
  view?: 'mine' | 'unassigned';
  /** The signed-in reviewer (for `mine`). */
  me?: string;
  /** The case's team. */
  team?: string;
  /** Sender address or name prefix, subject words, an email id or a case id. */
  search?: string;
}

/** Where a page starts: the key of the row just before (or after, when paging back) it. */
export interface QueueCursor {
  /** Index of the priority in PRIORITIES (0 = critical). */
  rank: number;
  /** emails.created_at as MariaDB prints it (microseconds), compared as it is stored. */
  at: string;
  id: string;
}

export interface QueueItem {
  emailId: string;
  /** The registry entry the mail came in through. */
  mailboxId: string;
  /** The IMAP folder it was fetched from. */
  mailbox: string | null;
  priority: string;
  status: string;
  fromName: string | null;
  fromAddress: string | null;
  subject: string | null;
  ageSeconds: number;
  draftId: string | null;
  draftVersion: number | null;
  flags: string[];
  caseId: string | null;
  owner: string | null;
  team: string | null;
  /** A reviewer holding the case right now, and until when (UTC). */
  claimedBy: string | null;
  claimedUntil: Date | null;
}

export interface QueuePage {
  items: QueueItem[];
  /** Cursor of the next page (after the last row), when there is one. */
  next: QueueCursor | null;
  /** Cursor of the previous page (before the first row), when there is one. */
  prev: QueueCursor | null;
}

/** Flags a queue row can carry; `manual_review` and `stale` name the email's and a draft's status. */
export const QUEUE_FLAGS = Object.freeze([
  'possible_prompt_injection',
  'reply_to_differs',
  DRAFT_FLAGS.spamScore,
  DRAFT_FLAGS.offlineDrafter,
  DRAFT_FLAGS.crossLanguageSource,
  DRAFT_FLAGS.unsupportedClaims,
  DRAFT_FLAGS.customerAsserted,
  DRAFT_FLAGS.promptShortened,
  STATUS.manualReview,
  DRAFT_STATUS.stale,
] as const);

/** The queue flags read from the draft's stored flags; the others are worked out from its row below. */
const STORED_QUEUE_FLAGS: ReadonlySet<string> = new Set(
  QUEUE_FLAGS.filter((f) => f !== DRAFT_FLAGS.offlineDrafter && f !== STATUS.manualReview && f !== DRAFT_STATUS.stale),
);

const LATEST_DRAFT = 'd.email_id = e.id AND d.version = (SELECT MAX(m.version) FROM drafts m WHERE m.email_id = e.id)';
const IN_DOUBT = `e.id IN (SELECT s.email_id FROM send_attempts s WHERE s.status = '${SEND_STATUS.inDoubt}')`;

interface Clause {
  sql: string;
  args: unknown[];
}

/** The filters every branch shares (mailbox, priority, flag, tab, team). */
function commonWhere(filter: QueueFilter): { clauses: Clause[]; joinCases: boolean } {
  const clauses: Clause[] = [];
  if (filter.mailbox) clauses.push({ sql: 'e.mailbox_id = ?', args: [filter.mailbox] });
  if (filter.priority) clauses.push({ sql: 'e.priority = ?', args: [filter.priority] });
  const flag = filter.flag;
  if (flag === STATUS.manualReview) clauses.push({ sql: `e.status = '${STATUS.manualReview}'`, args: [] });
  else if (flag === DRAFT_STATUS.stale)
    clauses.push({ sql: `EXISTS (SELECT 1 FROM drafts x WHERE x.email_id = e.id AND x.status = '${DRAFT_STATUS.stale}')`, args: [] });
  else if (flag === DRAFT_FLAGS.offlineDrafter)
    clauses.push({ sql: `EXISTS (SELECT 1 FROM drafts d WHERE ${LATEST_DRAFT} AND d.drafter = 'offline')`, args: [] });
  else if (flag)
    // Flags are stored as a JSON list of vocabulary words: `"word"` cannot occur inside another word.
    clauses.push({ sql: `EXISTS (SELECT 1 FROM drafts d WHERE ${LATEST_DRAFT} AND d.flags LIKE ?)`, args: [`%"${flag}"%`] });
  let joinCases = false;
  if (filter.view === 'mine') {
    joinCases = true;
    clauses.push({ sql: '(c.owner = ? OR (c.claimed_by = ? AND c.claimed_until > NOW(3)))', args: [filter.me ?? '', filter.me ?? ''] });
  } else if (filter.view === 'unassigned') {
    joinCases = true;
    clauses.push({ sql: 'c.owner IS NULL AND c.team IS NULL', args: [] });
  }
  if (filter.team) {
    joinCases = true;
    clauses.push({ sql: 'c.team = ?', args: [filter.team] });
  }
  return { clauses, joinCases };
}

/** Rows strictly after (or before) the cursor in queue order, as ranges the index can seek to. */
function keysetClause(cursor: QueueCursor, backwards: boolean): Clause {
  const priority = PRIORITIES[cursor.rank]!;
  const beyond = backwards ? PRIORITIES.slice(0, cursor.rank) : PRIORITIES.slice(cursor.rank + 1);
  const cmp = backwards ? '<' : '>';
  const same = `(e.priority = '${priority}' AND (e.created_at ${cmp} ? OR (e.created_at = ? AND e.id ${cmp} ?)))`;
  return {
    sql: beyond.length ? `(e.priority IN (${sqlList(beyond)}) OR ${same})` : same,
    args: [cursor.at, cursor.at, cursor.id],
  };
}

/** The WHERE clauses that say where rows may come from, one list per UNION branch. */
function branches(filter: QueueFilter, terms: QueueSearchTerms | null): Clause[] {
  const statuses: string[] = filter.status === SEND_STATUS.inDoubt ? [] : filter.status ? [filter.status] : [...NEEDS_PERSON_STATUSES];
  const doubt = !filter.status || filter.status === SEND_STATUS.inDoubt;
  if (!terms) {
    return [...statuses.map((s) => ({ sql: 'e.status = ?', args: [s] })), ...(doubt ? [{ sql: IN_DOUBT, args: [] }] : [])];
  }
  const searches: Clause[] = [
    { sql: 'e.id = ?', args: [terms.exact] },
    { sql: 'e.case_id = ?', args: [terms.exact] },
  ];
  if (terms.prefix) {
    searches.push({ sql: "e.from_address LIKE ? ESCAPE '\\\\'", args: [terms.prefix] });
    searches.push({ sql: "e.from_name LIKE ? ESCAPE '\\\\'", args: [terms.prefix] });
  }
  if (terms.words) searches.push({ sql: 'MATCH (e.subject) AGAINST (? IN BOOLEAN MODE)', args: [terms.words] });
  const out: Clause[] = [];
  if (statuses.length) for (const s of searches) out.push({ sql: `e.status IN (${sqlList(statuses)}) AND ${s.sql}`, args: s.args });
  if (doubt) out.push({ sql: `${IN_DOUBT} AND (${searches.map((s) => s.sql).join(' OR ')})`, args: searches.flatMap((s) => s.args) });
  return out;
}

/** The statement that finds one page's keys (exported for the EXPLAIN test). */
export function pageKeysStatement(filter: QueueFilter, cursor: QueueCursor | null, backwards: boolean, size: number): Clause {
  const terms = filter.search ? queueSearchTerms(filter.search) : null;
  const common = commonWhere(filter);
  const order = backwards ? 'DESC' : 'ASC';
  const limit = Math.floor(size) + 1;
  const parts: string[] = [];
  const args: unknown[] = [];
  for (const branch of branches(filter, terms)) {
    const where = [branch, ...common.clauses, ...(cursor ? [keysetClause(cursor, backwards)] : [])];
    parts.push(
      `(SELECT e.id, e.priority + 0 AS prank, e.created_at FROM emails e${common.joinCases ? ' LEFT JOIN cases c ON c.id = e.case_id' : ''}
        WHERE ${where.map((w) => w.sql).join(' AND ')}
        ORDER BY e.priority ${order}, e.created_at ${order}, e.id ${order} LIMIT ${limit})`,
    );
    for (const w of where) args.push(...w.args);
  }
  return {
    sql: `SELECT k.id, k.prank, DATE_FORMAT(k.created_at, '%Y-%m-%d %H:%i:%s.%f') AS at
          FROM (${parts.join(' UNION ')}) k ORDER BY k.prank ${order}, k.created_at ${order}, k.id ${order} LIMIT ${limit}`,
    args,
  };
}

/** Counts stop here: "1,000+" says enough, and a count reads at most this many rows per status. */
export const QUEUE_COUNT_CAP = 1_000;

/** How many emails each tab holds under the other filters (capped at QUEUE_COUNT_CAP + 1). */
export interface QueueCounts {
  all: number;
  mine: number;
  unassigned: number;
}

/**
 * The statement that counts one tab: the same branches as a page, each read off its index and
 * stopped after QUEUE_COUNT_CAP + 1 rows (exported for the EXPLAIN test).
 */
export function tabCountStatement(filter: QueueFilter): Clause {
  const terms = filter.search ? queueSearchTerms(filter.search) : null;
  const common = commonWhere(filter);
  const parts: string[] = [];
  const args: unknown[] = [];
  for (const branch of branches(filter, terms)) {
    const where = [branch, ...common.clauses];
    parts.push(
      `(SELECT e.id FROM emails e${common.joinCases ? ' LEFT JOIN cases c ON c.id = e.case_id' : ''}
        WHERE ${where.map((w) => w.sql).join(' AND ')} LIMIT ${QUEUE_COUNT_CAP + 1})`,
    );
    for (const w of where) args.push(...w.args);
  }
  return { sql: `SELECT COUNT(*) AS n FROM (${parts.join(' UNION ')}) k`, args };
}

/** Each tab's count under the other filters; above QUEUE_COUNT_CAP a count means "more than the cap". */
export async function tabCounts(pool: Queryable, filter: Omit<QueueFilter, 'view'>, me: string): Promise<QueueCounts> {
  const count = async (view: QueueFilter['view']) => {
    const { sql, args } = tabCountStatement({ ...filter, view, me });
    const [row] = await query<Array<{ n: bigint | number }>>(pool, 'counting the review queue', sql, args);
    return Number(row?.n ?? 0);
  };
  // Three short reads on the pool's connections at once: the page waits for the slowest, not the sum.
  const [all, mine, unassigned] = await Promise.all([count(undefined), count('mine'), count('unassigned')]);
  return { all, mine, unassigned };
}

interface KeyRow {
  id: string;
  prank: number;
  at: string;
}

async function pageKeys(pool: Queryable, filter: QueueFilter, cursor: QueueCursor | null, backwards: boolean, size: number) {
  const { sql, args } = pageKeysStatement(filter, cursor, backwards, size);
  const rows = await query<KeyRow[]>(pool, 'paging the review queue', sql, args);
  const keys = rows.map((r) => ({ rank: Number(r.prank) - 1, at: r.at, id: r.id }));
  const more = keys.length > size;
  const page = keys.slice(0, size);
  return { keys: backwards ? page.reverse() : page, more };
}

/**
 * One page of the queue. `after` continues forward from a row, `before` goes back from one; paging
 * back to the start shows the first page in full (rows that left the queue meanwhile leave no gap).
 */
export async function queuePage(
  pool: Queryable,
  filter: QueueFilter,
  at: { after?: QueueCursor; before?: QueueCursor } = {},
  size = QUEUE_PAGE_SIZE,
): Promise<QueuePage> {
  if (at.before) {
    const back = await pageKeys(pool, filter, at.before, true, size);
    if (back.more) {
      const items = await queueRows(
        pool,
        back.keys.map((k) => k.id),
      );
      return { items, prev: back.keys[0] ?? null, next: back.keys.at(-1) ?? null };
    }
    return queuePage(pool, filter, {}, size);
  }
  const fwd = await pageKeys(pool, filter, at.after ?? null, false, size);
  const items = await queueRows(
    pool,
    fwd.keys.map((k) => k.id),
  );
  return { items, next: fwd.more ? (fwd.keys.at(-1) ?? null) : null, prev: at.after && fwd.keys[0] ? fwd.keys[0] : null };
}

interface Row {
  id: string;
  mailbox_id: string;
  mailbox: string | null;
  priority: string;
  status: string;
  from_name: string | null;
  from_address: string | null;
  subject: string | null;
  age: number;
  case_id: string | null;
  owner: string | null;
  team: string | null;
  claimed_by: string | null;
  claimed_until: Date | null;
  draft_id: string | null;
  version: number | null;
  flags: string | null;
  drafter: string | null;
  stale: number;
  send_status: string | null;
}

function parseList(raw: string | null): string[] {
  if (!raw) return [];
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** The rows of one page, in the order of `ids`, by primary key. */
async function queueRows(pool: Queryable, ids: string[]): Promise<QueueItem[]> {
  if (ids.length === 0) return [];
  const rows = await query<Row[]>(
    pool,
    'reading a page of the review queue',
    `SELECT e.id, e.mailbox_id, e.mailbox, e.priority, e.status, e.from_name, e.from_address, e.subject,
            TIMESTAMPDIFF(SECOND, e.created_at, CURRENT_TIMESTAMP(3)) AS age, e.case_id,
            c.owner, c.team, IF(c.claimed_until > NOW(3), c.claimed_by, NULL) AS claimed_by,
            IF(c.claimed_until > NOW(3), c.claimed_until, NULL) AS claimed_until,
            d.id AS draft_id, d.version, d.flags, d.drafter, s.status AS send_status,
            (SELECT COUNT(*) FROM drafts x WHERE x.email_id = e.id AND x.status = '${DRAFT_STATUS.stale}') AS stale
     FROM emails e
     LEFT JOIN cases c ON c.id = e.case_id
     LEFT JOIN drafts d ON ${LATEST_DRAFT}
     LEFT JOIN send_attempts s ON s.draft_id = d.id
     WHERE e.id IN (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [toItem(r)] : [];
  });
}

function toItem(r: Row): QueueItem {
  const flags: string[] = parseList(r.flags).filter((f) => STORED_QUEUE_FLAGS.has(f));
  if (r.drafter === 'offline') flags.push(DRAFT_FLAGS.offlineDrafter);
  if (r.status === STATUS.manualReview) flags.push(STATUS.manualReview);
  if (Number(r.stale) > 0) flags.push(DRAFT_STATUS.stale);
  return {
    emailId: r.id,
    mailboxId: r.mailbox_id,
    mailbox: r.mailbox,
    priority: r.priority,
    status: r.send_status === SEND_STATUS.inDoubt ? SEND_STATUS.inDoubt : r.status,
    fromName: r.from_name,
    fromAddress: r.from_address,
    subject: r.subject,
    ageSeconds: Number(r.age),
    draftId: r.draft_id,
    draftVersion: r.version === null ? null : Number(r.version),
    flags: [...new Set(flags)],
    caseId: r.case_id,
    owner: r.owner,
    team: r.team,
    claimedBy: r.claimed_by,
    claimedUntil: r.claimed_until,
  };
}

/** A cursor as it travels in a link: opaque, URL-safe. */
export function encodeCursor(c: QueueCursor): string {
  return Buffer.from(JSON.stringify([c.rank, c.at, c.id]), 'utf8').toString('base64url');
}

const AT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

/** A cursor from a link; anything else (edited, truncated, hostile) is null: the first page. */
export function decodeCursor(raw: unknown): QueueCursor | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 1024) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(v) || v.length !== 3) return null;
    const [rank, at, id] = v as [unknown, unknown, unknown];
    if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= PRIORITIES.length) return null;
    if (typeof at !== 'string' || !AT.test(at)) return null;
    if (typeof id !== 'string' || id.length === 0 || id.length > 191) return null;
    return { rank, at, id };
  } catch {
    return null;
  }
}

export type { Priority };
