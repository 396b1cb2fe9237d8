/**
 * A lived-in installation for the pipeline bench: what a team's installation holds after its first
 * weeks, written before the load so that the bench measures drafting against it, not against an
 * empty database. Guidance at every scope (with earlier versions), approved replies in every
 * category (the examples a draft takes), open cases, a mailbox history of past emails with their
 * passages and vectors as intake leaves them, and a knowledge folder of a few hundred files.
 *
 * Written by bulk SQL (fixed ids, INSERT IGNORE: running it again adds nothing); only the
 * knowledge folder goes through the product's own sync, so its passages and vectors are exactly
 * the worker's. Past emails' vectors come from the stack's embedder, one per distinct passage
 * text with its numbers left out (the mails differ in customer and order numbers, which move a
 * vector little): the same shape of data in a minute instead of an hour of embedding.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Pool } from '../../src/platform/pool.mariadb';
import type { Config } from '../../src/platform/config';
import { readCategoryList } from '../../src/drafting/categories';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { buildIndex, sharedEmbedder, syncKnowledgeFolder } from '../../src/retrieval/index.adapters';
import { buildEmbedder } from '../../src/retrieval/embedder';
import { emailPassages } from '../../src/retrieval/passages';
import { PASSAGE_COLUMNS, passageRows } from '../../src/retrieval/fulltext-index.mariadb';
import type { IndexableEmail } from '../../src/retrieval/vector-index.port';
import { createMariaDbMessageStore } from '../../src/email/index.adapters';
import { inboundEmail, replyTo, seededRandom } from './retrieval-corpus';

export interface LivedInShape {
  /** Past emails in the mailbox history (each answered: a sent draft, its outcome). */
  pastEmails: number;
  /** Of the past emails, this share was approved unchanged or lightly edited (example candidates). */
  acceptedShare: number;
  /** Open cases (past correspondents, not the load's). */
  openCases: number;
  /** Files in the knowledge folder. */
  knowledgeFiles: number;
  /** Past emails from the load's own correspondents (returning customers): `kunde-<tag>-<i>`. */
  returning: { tag: string; customers: number; mails: number };
}

export const LIVED_IN: LivedInShape = {
  pastEmails: 10_000,
  acceptedShare: 0.3,
  openCases: 300,
  knowledgeFiles: 300,
  returning: { tag: 'batch', customers: 1_000, mails: 2_000 },
};

const DEMO_KNOWLEDGE = path.resolve(__dirname, '..', 'demo-knowledge');
const DEMO_GUIDANCE = path.resolve(__dirname, '..', 'demo-guidance');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? filesUnder(p) : [p];
  });
}

/**
 * `n` knowledge files: the demo's own (FAQ, policies, product notes) and variants of them per
 * product line and region, each with a section of the bench corpus's topics, so that a draft's
 * search meets many near-alike files as in a real folder. Written once per folder (idempotent).
 */
export function writeKnowledgeFolder(dir: string, n: number): void {
  const demo = filesUnder(DEMO_KNOWLEDGE).map((p) => ({ rel: path.relative(DEMO_KNOWLEDGE, p), text: fs.readFileSync(p, 'utf8') }));
  const rnd = seededRandom(7);
  const lines = ['Basis', 'Plus', 'Pro', 'Business', 'Enterprise', 'Start', 'Family', 'Mobil', 'Cloud', 'Kompakt'];
  const regions = ['Deutschland', 'Österreich', 'Schweiz', 'EU', 'UK', 'International'];
  for (let i = 0; i < n; i++) {
    const base = demo[i % demo.length]!;
    const line = lines[Math.floor(i / demo.length) % lines.length]!;
    const region = regions[Math.floor(i / (demo.length * lines.length)) % regions.length]!;
    const topic = inboundEmail('knowledge', i, rnd);
    const rel =
      i < demo.length
        ? base.rel
        : path.join(path.dirname(base.rel), `${line.toLowerCase()}-${region.toLowerCase()}-${i}-${path.basename(base.rel)}`);
    const text =
      i < demo.length
        ? base.text
        : `# ${line} (${region})\n\nGilt für Verträge im Tarif ${line}, Kundinnen und Kunden in ${region}.\n\n${base.text}\n\n## ${topic.subject.replace(/\s*\(.*\)$/, '')}\n\n${topic.text.split('\n\n')[1]}\n`;
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (!fs.existsSync(file)) fs.writeFileSync(file, text);
  }
}

const pad = (i: number) => String(i).padStart(5, '0');
const pastId = (i: number) => `lived-in-${pad(i)}`;

/** Guidance at every scope: default, the mailbox, each category, the mailbox's each category; three versions each. */
async function seedGuidance(pool: Pool, categories: string[]): Promise<number> {
  const base = fs.readFileSync(path.join(DEMO_GUIDANCE, 'default.txt'), 'utf8').trim();
  const billing = fs.readFileSync(path.join(DEMO_GUIDANCE, 'billing.txt'), 'utf8').trim();
  const scopes: Array<[string, string, string]> = [
    ['', '', base],
    ['default', '', `${base}\nIm Postfach default antworten Sie mit der Signatur des Support-Teams.`],
    ...categories.flatMap((c): Array<[string, string, string]> => [
      [
        '',
        c,
        `${c === 'billing' ? billing : `Zu ${c}: nennen Sie die Vorgangsnummer und den nächsten Schritt.`}\nVerweisen Sie auf die passende Seite der Wissensbasis.`,
      ],
      ['default', c, `Für ${c} im Postfach default: keine Zusagen zu Fristen, die nicht in der Wissensbasis stehen.`],
    ]),
  ];
  const rows = scopes.flatMap(([mailbox, category, text]) =>
    [1, 2, 3].map((v) => [mailbox, category, v, v === 3 ? text : `${text}\n(Fassung ${v})`, 'lived-in-seed']),
  );
  await pool.query(
    `INSERT IGNORE INTO guidance_versions (mailbox_id, category, version, text, author) VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
    rows.flat(),
  );
  return scopes.length;
}

/** The past emails' vectors: one embedding per distinct passage text with its digits left out. */
function vectorMemo(config: Config) {
  const memo = new Map<string, number[]>();
  return {
    async fill(texts: string[]): Promise<void> {
      const built = await buildEmbedder(config);
      if (!built.embedder) return;
      const missing = [...new Set(texts.map((t) => t.replace(/\d+/g, '')))].filter((k) => !memo.has(k));
      for (let i = 0; i < missing.length; i += 32) {
        const chunk = missing.slice(i, i + 32);
        const vectors = await built.embedder.embed(chunk, 'passage');
        chunk.forEach((k, j) => memo.set(k, vectors[j]!));
      }
      this.model = built.embedder.model;
      await built.stop();
    },
    model: null as string | null,
    of: (text: string) => memo.get(text.replace(/\d+/g, '')) ?? null,
  };
}

interface Past {
  inbound: IndexableEmail;
  reply: IndexableEmail;
  category: string;
  accepted: boolean;
  minutesAgo: number;
}

function pastEmails(shape: LivedInShape, categories: string[], account: string): Past[] {
  const rnd = seededRandom(11);
  return Array.from({ length: shape.pastEmails }, (_, i) => {
    const mail = inboundEmail('past', i, rnd);
    // The first `returning.mails` come from the load's own correspondents: customers who wrote before.
    const from =
      i < shape.returning.mails
        ? `kunde-${shape.returning.tag}-${i % shape.returning.customers}@customer${(i % shape.returning.customers) % 50}.example`
        : `kunde-past-${i % Math.floor(shape.pastEmails / 2.5)}@customer${i % 50}.example`;
    const inbound = { ...mail, emailId: pastId(i), threadId: pastId(i), account, fromAddress: from };
    const reply = { ...replyTo(inbound, rnd), emailId: `${pastId(i)}-reply`, toAddresses: [from] };
    return {
      inbound,
      reply,
      category: categories[i % categories.length]!,
      accepted: rnd() < shape.acceptedShare,
      // Spread over the last two weeks.
      minutesAgo: 20 + Math.floor((i * 14 * 24 * 60) / shape.pastEmails),
    };
  });
}

async function insertChunked(pool: Pool, sql: string, cols: number, rows: unknown[][], size = 500): Promise<void> {
  for (let i = 0; i < rows.length; i += size) {
    const chunk = rows.slice(i, i + size);
    const one = `(${Array.from({ length: cols }, () => '?').join(', ')})`;
    await pool.query(`${sql} VALUES ${chunk.map(() => one).join(', ')}`, chunk.flat());
  }
}

/** The past emails, their sent drafts and outcomes, and their passages (inbound and our reply) with vectors. */
async function seedHistory(pool: Pool, config: Config, past: Past[]): Promise<void> {
  const memo = vectorMemo(config);
  await memo.fill(past.flatMap((p) => [...emailPassages(p.inbound), ...emailPassages(p.reply)]));
  const at = (m: number) => new Date(Date.now() - m * 60_000);
  await insertChunked(
    pool,
    `INSERT IGNORE INTO emails (id, source, account, mailbox_id, mailbox, uid_validity, uid, status, message_id, thread_id,
       from_address, from_name, to_addresses, subject, text_body, sent_date, raw_size, created_at, status_changed_at, index_state, triage_class)`,
    21,
    past.map((p, i) => [
      p.inbound.emailId,
      'imap',
      p.inbound.account,
      'default',
      'INBOX',
      1,
      1_000_000 + i,
      'sent',
      `<${p.inbound.emailId}@customer.example>`,
      p.inbound.threadId,
      p.inbound.fromAddress,
      `Kunde ${i}`,
      config.imap.user,
      p.inbound.subject,
      p.inbound.text,
      at(p.minutesAgo),
      p.inbound.text.length + 600,
      at(p.minutesAgo),
      at(p.minutesAgo - 10),
      'complete',
      'customer',
    ]),
  );
  await insertChunked(
    pool,
    `INSERT IGNORE INTO drafts (id, email_id, version, status, subject, body, language, confidence, drafter, model, prompt_version,
       context_ids, to_address, to_name, decided_by, decided_at, category, created_at)`,
    18,
    past.map((p, i) => [
      `${p.inbound.emailId}-d1`,
      p.inbound.emailId,
      1,
      'sent',
      p.reply.subject,
      `Guten Tag Kunde ${i},\n\n${p.reply.text.split('\n\n')[1]}\n\nMit freundlichen Grüßen\nIhr Support-Team`,
      'de',
      0.8,
      'openai',
      'lived-in-model',
      'lived-in',
      '[]',
      p.inbound.fromAddress,
      `Kunde ${i}`,
      'reviewer@example.test',
      at(p.minutesAgo - 10),
      p.category,
      at(p.minutesAgo - 5),
    ]),
  );
  await insertChunked(
    pool,
    `INSERT IGNORE INTO draft_outcomes (draft_id, email_id, outcome, edit_distance, changed_share, mailbox_id, category, language, drafter,
       model, prompt_version, decided_by, decided_at)`,
    13,
    past.map((p, i) => [
      `${p.inbound.emailId}-d1`,
      p.inbound.emailId,
      p.accepted ? (i % 3 === 0 ? 'light_edit' : 'approved_unchanged') : 'heavy_edit',
      p.accepted ? 3 : 80,
      p.accepted ? 0.05 : 0.6,
      'default',
      p.category,
      'de',
      'openai',
      'lived-in-model',
      'lived-in',
      'reviewer@example.test',
      at(p.minutesAgo - 10),
    ]),
  );
  const passages = past.flatMap((p) =>
    [p.inbound, p.reply].flatMap((e) => {
      const texts = emailPassages(e);
      const vectors = memo.model ? texts.map((t) => memo.of(t) ?? []) : null;
      return passageRows(e, vectors, memo.model).map((row) => [...row, at(p.minutesAgo)]);
    }),
  );
  await insertChunked(
    pool,
    `INSERT IGNORE INTO passages (${[...PASSAGE_COLUMNS, 'created_at'].join(', ')})`,
    PASSAGE_COLUMNS.length + 1,
    passages,
  );
}

/** Open cases of past correspondents (not the load's: a new mail of theirs would join the case and change what is measured). */
async function seedCases(pool: Pool, past: Past[], n: number, account: string): Promise<void> {
  const open = past.filter((p) => p.inbound.fromAddress.startsWith('kunde-past-')).slice(0, n);
  await insertChunked(
    pool,
    `INSERT IGNORE INTO cases (id, account, mailbox_id, correspondent, correspondent_name, subject, status, priority, opened_at, last_customer_at, email_count)`,
    11,
    open.map((p, i) => [
      `case-${p.inbound.emailId}`,
      account,
      'default',
      p.inbound.fromAddress,
      `Kunde ${i}`,
      p.inbound.subject,
      i % 4 === 0 ? 'waiting_for_customer' : 'open',
      i % 10 === 0 ? 'high' : 'normal',
      new Date(),
      new Date(),
      1,
    ]),
  );
  for (const p of open)
    await pool.query('UPDATE emails SET case_id = ? WHERE id = ? AND case_id IS NULL', [`case-${p.inbound.emailId}`, p.inbound.emailId]);
}

/**
 * Seeds `pool`'s database as a lived-in installation of `config` (whose KNOWLEDGE_DIR the folder
 * is written to and synced from). Idempotent: ids are fixed and rows are inserted only once.
 */
export async function seedLivedIn(
  config: Config,
  pool: Pool,
  log: (line: string) => void,
  shape: LivedInShape = LIVED_IN,
): Promise<Record<string, number>> {
  const t0 = Date.now();
  const categories = readCategoryList().map((c) => c.name);
  const account = config.imap.user;
  const guidanceScopes = await seedGuidance(pool, categories);
  const past = pastEmails(shape, categories, account);
  await seedHistory(pool, config, past);
  await seedCases(pool, past, shape.openCases, account);
  const t1 = Date.now();
  let knowledgeFiles = 0;
  if (config.context.knowledgeDir) {
    writeKnowledgeFolder(config.context.knowledgeDir, shape.knowledgeFiles);
    const built = await buildEmbedder(config);
    const index = buildIndex(
      config,
      pool,
      createMariaDbMessageStore(pool),
      createMariaDbAuditLog(pool),
      built.embedder && sharedEmbedder(config, built.embedder),
    );
    const synced = await syncKnowledgeFolder(config, pool, index);
    await built.stop();
    knowledgeFiles = (synced?.added.length ?? 0) + (synced?.unchanged ?? 0) + (synced?.updated.length ?? 0);
  }
  const count = async (sql: string) => Number(((await pool.query(sql)) as Array<{ n: number }>)[0]?.n ?? 0);
  const figures = {
    guidanceScopes,
    guidanceVersions: await count('SELECT COUNT(*) AS n FROM guidance_versions'),
    pastEmails: await count(`SELECT COUNT(*) AS n FROM emails WHERE id LIKE 'lived-in-%'`),
    exampleCandidates: await count(`SELECT COUNT(*) AS n FROM draft_outcomes WHERE outcome IN ('approved_unchanged', 'light_edit')`),
    openCases: await count(`SELECT COUNT(*) AS n FROM cases WHERE status <> 'closed'`),
    passages: await count('SELECT COUNT(*) AS n FROM passages'),
    knowledgeFiles,
    knowledgePassages: await count('SELECT COUNT(*) AS n FROM knowledge_passages'),
  };
  log(
    `lived-in: ${figures.pastEmails} past emails (${figures.passages} passages with vectors), ${figures.exampleCandidates} approved replies ` +
      `over ${categories.length} categories, guidance at ${guidanceScopes} scopes (${figures.guidanceVersions} versions), ${figures.openCases} open cases, ` +
      `${knowledgeFiles} knowledge files (${figures.knowledgePassages} passages); history ${((t1 - t0) / 1000).toFixed(1)} s, knowledge ${((Date.now() - t1) / 1000).toFixed(1)} s`,
  );
  return figures;
}

/**
 * What a lived-in run sets on top of the caller's environment: payload encryption as the demo
 * configures it, unless PAYLOAD_KEYS is given (an empty value: encryption off).
 */
export function livedInEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  if (env.PAYLOAD_KEYS !== undefined) return {};
  return { PAYLOAD_KEYS: `bench:${randomBytes(32).toString('base64')}`, PAYLOAD_KEY_ID: 'bench' };
}
