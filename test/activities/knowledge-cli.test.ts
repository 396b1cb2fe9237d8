/** `email-rag knowledge sync` as an operator runs it: the real CLI against a throwaway MariaDB database. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createTestDatabase } from '../support/database';

const run = promisify(execFile);
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dir: string;

before(async () => {
  db = await createTestDatabase('knowledge');
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-knowledge-cli-'));
});
after(async () => {
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string>) {
  try {
    const r = await run(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, DATABASE_URL: db.url, ...env } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('knowledge sync: added, then nothing to do, then changed and removed files; clear errors', async () => {
  const none = await cli(['knowledge', 'sync'], { KNOWLEDGE_DIR: '' });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /KNOWLEDGE_DIR is not set/);
  assert.equal((await cli(['knowledge', 'rebuild'], { KNOWLEDGE_DIR: dir })).code, 2);
  const missing = await cli(['knowledge', 'sync'], { KNOWLEDGE_DIR: path.join(dir, 'nope') });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /KNOWLEDGE_DIR is not a readable directory/);

  writeFileSync(path.join(dir, 'faq.md'), '# FAQ\n\nRechnungen finden Sie im Kundenkonto unter "Dokumente".\n');
  writeFileSync(path.join(dir, 'agb.txt'), 'Die Kündigungsfrist beträgt einen Monat zum Monatsende.\n');
  const first = await cli(['knowledge', 'sync'], { KNOWLEDGE_DIR: dir });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^added\tagb\.txt$/m);
  assert.match(first.stdout, /^added\tfaq\.md$/m);
  assert.match(first.stdout, /2 added, 0 updated, 0 removed, 0 unchanged/);

  const second = await cli(['knowledge', 'sync'], { KNOWLEDGE_DIR: dir });
  assert.match(second.stdout, /0 added, 0 updated, 0 removed, 2 unchanged/);

  writeFileSync(path.join(dir, 'agb.txt'), 'Die Kündigungsfrist beträgt drei Monate.\n');
  rmSync(path.join(dir, 'faq.md'));
  const third = await cli(['knowledge', 'sync'], { KNOWLEDGE_DIR: dir });
  assert.match(third.stdout, /^updated\tagb\.txt$/m);
  assert.match(third.stdout, /^removed\tfaq\.md$/m);
  const rows = (await db.pool.query(`SELECT email_id, direction, text FROM passages ORDER BY email_id, idx`)) as Array<{
    email_id: string;
    direction: string;
    text: string;
  }>;
  assert.deepEqual([...new Set(rows.map((r) => r.email_id))], ['knowledge:agb.txt']);
  assert.ok(rows.every((r) => r.direction === 'knowledge'));
  assert.match(rows.map((r) => r.text).join(' '), /drei Monate/);
});
