/**
 * A review queue of many emails straight in MariaDB (no pipeline): emails waiting for a person, each
 * with a draft and a case, spread over mailboxes, priorities, owners and teams; plus emails that are
 * done, so the queue is a minority of the table as in production. Many rows share a priority and a
 * creation time, so paging must break ties by id.
 */
import type { Pool } from '../../src/platform/pool.mariadb';

export interface QueueSeed {
  waiting: number;
  /** Emails already answered (not in the queue). */
  done: number;
  mailboxes: string[];
  owners: string[];
  teams: string[];
}

export const DEFAULT_QUEUE_SEED: QueueSeed = {
  waiting: 10_000,
  done: 10_000,
  mailboxes: ['default', 'billing', 'sales'],
  owners: ['rita', 'otto', 'anna', 'ben'],
  teams: ['billing', 'support'],
};

const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;
const WORDS = ['Lieferung', 'Rechnung', 'Retoure', 'Kündigung', 'Passwort', 'Adresse', 'Zahlung', 'Gutschein', 'Defekt', 'Termin'];
const NAMES = ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann'];

/** The id of the i-th seeded waiting email (zero-padded: sorts like its number). */
export const seededEmailId = (i: number): string => `q-${String(i).padStart(6, '0')}`;
export const seededCaseId = (i: number): string => `case-${String(Math.floor(i / 2)).padStart(6, '0')}`;

/** Who the i-th waiting email's case belongs to: a quarter unassigned, the rest by owner and/or team. */
export function seededAssignment(i: number, seed: QueueSeed = DEFAULT_QUEUE_SEED): { owner: string | null; team: string | null } {
  const c = Math.floor(i / 2);
  if (c % 4 === 0) return { owner: null, team: null };
  if (c % 4 === 1) return { owner: null, team: seed.teams[c % seed.teams.length]! };
  return { owner: seed.owners[Math.floor(c / 4) % seed.owners.length]!, team: c % 4 === 2 ? seed.teams[c % seed.teams.length]! : null };
}

export async function seedQueue(pool: Pool, seed: QueueSeed = DEFAULT_QUEUE_SEED): Promise<void> {
  const base = Date.parse('2026-11-01T08:00:00.000Z');
  // Ten emails per second of creation time: ties on (priority, created_at) are the rule, not the exception.
  const at = (i: number) => new Date(base + Math.floor(i / 10) * 1000).toISOString().replace('T', ' ').replace('Z', '');
  const batch = 1000;
  for (let from = 0; from < seed.waiting; from += batch) {
    const emails: unknown[] = [];
    const drafts: unknown[] = [];
    const cases: unknown[] = [];
    const to = Math.min(seed.waiting, from + batch);
    for (let i = from; i < to; i++) {
      const id = seededEmailId(i);
      const mailbox = seed.mailboxes[i % seed.mailboxes.length]!;
      const name = NAMES[i % NAMES.length]!;
      const address = `${name.toLowerCase().replace('ü', 'ue')}.${i}@kunde${i % 50}.example`;
      const subject = `${WORDS[i % WORDS.length]} ${1000 + i} ${WORDS[(i * 7) % WORDS.length]}`;
      const status = i % 10 === 9 ? 'manual_review' : 'awaiting_approval';
      emails.push(id, status, PRIORITIES[(i * 3) % 4], mailbox, subject, address, `${name} ${i}`, at(i), seededCaseId(i));
      if (status === 'awaiting_approval')
        drafts.push(`${id}:draft:1`, id, subject, 'Guten Tag,\n\n…', i % 13 === 0 ? 'offline' : 'llm', address);
      if (i % 2 === 0) {
        const { owner, team } = seededAssignment(i, seed);
        cases.push(seededCaseId(i), mailbox, address, subject, owner, team, owner || team ? 'rule:seed' : null, at(i));
      }
    }
    await pool.query(
      `INSERT INTO emails (id, source, status, priority, mailbox_id, mailbox, subject, from_address, from_name, created_at, case_id)
       VALUES ${Array.from({ length: to - from }, () => "(?, 'file', ?, ?, ?, 'INBOX', ?, ?, ?, ?, ?)").join(', ')}`,
      emails,
    );
    if (drafts.length)
      await pool.query(
        `INSERT INTO drafts (id, email_id, version, subject, body, language, drafter, model, prompt_version, context_ids, to_address)
         VALUES ${Array.from({ length: drafts.length / 6 }, () => "(?, ?, 1, ?, ?, 'de', ?, 'seed', 'v1', '[]', ?)").join(', ')}`,
        drafts,
      );
    await pool.query(
      `INSERT INTO cases (id, account, mailbox_id, correspondent, subject, owner, team, routed_by, opened_at, email_count)
       VALUES ${Array.from({ length: cases.length / 8 }, () => "(?, 'seed', ?, ?, ?, ?, ?, ?, ?, 2)").join(', ')}`,
      cases,
    );
  }
  for (let from = 0; from < seed.done; from += batch) {
    const to = Math.min(seed.done, from + batch);
    const rows: unknown[] = [];
    for (let i = from; i < to; i++)
      rows.push(`d-${String(i).padStart(6, '0')}`, PRIORITIES[i % 4], `Erledigt ${i}`, `alt.${i}@kunde.example`, at(i));
    await pool.query(
      `INSERT INTO emails (id, source, status, priority, mailbox_id, mailbox, subject, from_address, created_at)
       VALUES ${Array.from({ length: to - from }, () => "(?, 'file', 'sent', ?, 'default', 'INBOX', ?, ?, ?)").join(', ')}`,
      rows,
    );
  }
  // Fresh statistics: the optimizer chooses its plans from them, as on a server that has run a while.
  await pool.query('ANALYZE TABLE emails, drafts, cases');
}
