/**
 * Pairs each customer mail of an archive with the reply the team actually sent: the first mail
 * from a team address, dated after the customer mail, that answers it by its thread headers.
 * Pure: the archive is read elsewhere (replay-archive.ts).
 *
 * A reply answers the mail its In-Reply-To names when that is a customer mail of the archive;
 * otherwise (it answers our own earlier reply, or In-Reply-To is missing) the latest customer
 * mail its References name that is dated before it. Each reply answers at most one customer mail,
 * so one reply to a customer who wrote twice is not counted twice; the mail it did not answer
 * directly stays unanswered. A reply dated before the mail it names is ignored (clock skew or a
 * re-sent message: it cannot have been written for it).
 */
import { createHash } from 'node:crypto';

export interface ArchiveMail {
  /** The natural key within a run: sha256 of the Message-ID (or of the bytes without one), 32 hex. */
  key: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  from: { name: string; address: string };
  replyTo: { name: string; address: string } | null;
  to: Array<{ name: string; address: string }>;
  date: Date;
  subject: string;
  text: string;
}

export interface ReplayPairing {
  customer: ArchiveMail;
  reply: ArchiveMail;
}

export interface PairingResult {
  pairs: ReplayPairing[];
  /** Customer mails (from anyone but the team) in the archive. */
  customerMails: number;
  /** Mails from a team address. */
  teamMails: number;
  /** Customer mails no team reply answers. */
  unanswered: number;
  /** The thread of every mail (by key): the first Message-ID of its References, or its own. */
  threadOf: Map<string, string>;
  /** The customer each mail is about (lower case): a customer mail's sender, a team mail's first outside recipient. */
  correspondentOf: Map<string, string>;
}

/** 32 hex characters of sha256: short enough for a key column, long enough never to collide here. */
export function shortHash(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** `<id@host>` whatever the header's spacing; null for nothing. */
export function normalMessageId(id: string | null | undefined): string | null {
  const t = id?.trim();
  if (!t) return null;
  return t.startsWith('<') ? t : `<${t}>`;
}

const lower = (a: string) => a.trim().toLowerCase();

export function pairArchive(mails: readonly ArchiveMail[], teamAddresses: readonly string[]): PairingResult {
  const team = new Set(teamAddresses.map(lower));
  const isTeam = (m: ArchiveMail) => team.has(lower(m.from.address));
  const byId = new Map<string, ArchiveMail>();
  for (const m of mails) if (m.messageId && !byId.has(m.messageId)) byId.set(m.messageId, m);

  const threadOf = new Map<string, string>();
  const correspondentOf = new Map<string, string>();
  for (const m of mails) {
    threadOf.set(m.key, shortHash(rootOf(m, byId) ?? m.key));
    const outside = m.to.find((t) => !team.has(lower(t.address)));
    const who = isTeam(m) ? outside?.address : (m.replyTo ?? m.from).address;
    if (who) correspondentOf.set(m.key, lower(who));
  }

  // Each team reply answers one customer mail: the earliest reply of each mail is its pair.
  const answerOf = new Map<string, ArchiveMail>();
  for (const reply of mails.filter(isTeam)) {
    const answered = answeredMail(reply, byId, isTeam);
    if (!answered || reply.date.getTime() <= answered.date.getTime()) continue;
    const before = answerOf.get(answered.key);
    if (!before || reply.date.getTime() < before.date.getTime()) answerOf.set(answered.key, reply);
  }
  const customers = mails.filter((m) => !isTeam(m));
  const pairs = customers.flatMap((c) => {
    const reply = answerOf.get(c.key);
    const who = correspondentOf.get(c.key);
    if (!reply || !who) return [];
    // A reply belongs to the customer it answers, whatever its To says (a mailing list's archive
    // names the list there, or keeps no To at all).
    correspondentOf.set(reply.key, who);
    return [{ customer: c, reply }];
  });
  pairs.sort((a, b) => a.customer.date.getTime() - b.customer.date.getTime() || a.customer.key.localeCompare(b.customer.key));
  return {
    pairs,
    customerMails: customers.length,
    teamMails: mails.length - customers.length,
    unanswered: customers.length - pairs.length,
    threadOf,
    correspondentOf,
  };
}

/** The customer mail a team reply answers: its In-Reply-To if that is a customer mail, else the latest one its References name before it. */
function answeredMail(reply: ArchiveMail, byId: Map<string, ArchiveMail>, isTeam: (m: ArchiveMail) => boolean): ArchiveMail | undefined {
  const direct = reply.inReplyTo ? byId.get(reply.inReplyTo) : undefined;
  if (direct && !isTeam(direct)) return direct;
  const named = [...reply.references, ...(reply.inReplyTo ? [reply.inReplyTo] : [])]
    .map((id) => byId.get(id))
    .filter((m): m is ArchiveMail => m !== undefined && !isTeam(m) && m.date.getTime() < reply.date.getTime());
  return named.sort((a, b) => b.date.getTime() - a.date.getTime())[0];
}

/** The thread's first Message-ID: the first of References, else up the In-Reply-To chain as far as the archive goes. */
function rootOf(m: ArchiveMail, byId: Map<string, ArchiveMail>): string | null {
  if (m.references.length > 0) return m.references[0]!;
  let cur = m;
  const seen = new Set<string>();
  while (cur.inReplyTo && !seen.has(cur.inReplyTo)) {
    seen.add(cur.inReplyTo);
    const parent = byId.get(cur.inReplyTo);
    if (!parent) return cur.inReplyTo;
    if (parent.references.length > 0) return parent.references[0]!;
    cur = parent;
  }
  return cur.messageId;
}
