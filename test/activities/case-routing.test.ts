/**
 * Routing, hand assignment and claims of cases against a real MariaDB: the rules' first match is
 * written once (a retry adds nothing), a person's assignment wins over the rules, two reviewers
 * claiming at once get one winner, and a claim taken over after it expired is history.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createCaseRoutingActivities } from '../../src/cases/case-routing.activities';
import { createMariaDbCaseClaims } from '../../src/cases/case-claims.mariadb';
import { createMariaDbCaseRouting } from '../../src/cases/case-routing.mariadb';
import { createPool, type Pool } from '../../src/platform/pool.mariadb';
import { PermanentError } from '../../src/platform/errors';
import { parseRoutingRules } from '../../src/cases/routing-rules';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;

const RULES = parseRoutingRules(`
version: 1
rules:
  - name: vip
    match: { senderDomain: "*.bigcustomer.example" }
    owner: rita
  - name: billing
    match: { mailbox: billing, category: invoice }
    team: billing
  - name: english
    match: { language: en }
    team: international
`);

before(async () => {
  db = await createTestDatabase('cases');
  await db.pool.query(`INSERT INTO inbox_users (name, password_hash, role) VALUES ('rita', 'x', 'reviewer'), ('otto', 'x', 'operator')`);
  await db.pool.query(`INSERT INTO inbox_users (name, password_hash, role, disabled_at) VALUES ('gone', 'x', 'reviewer', NOW())`);
});

after(async () => {
  await db?.drop();
});

beforeEach(async () => {
  await db.pool.query('DELETE FROM cases');
  await db.pool.query('DELETE FROM case_events');
  await db.pool.query(
    `INSERT INTO cases (id, account, mailbox_id, correspondent, subject, priority) VALUES
     ('c1', 'acc', 'billing', 'kunde@shop.example', 'Rechnung', 'normal'),
     ('c2', 'acc', 'default', 'boss@eu.bigcustomer.example', 'Vertrag', 'high')`,
  );
});

async function row(id: string) {
  const [r] = (await db.pool.query('SELECT team, owner, routed_by, claimed_by, claimed_until FROM cases WHERE id = ?', [id])) as Array<{
    team: string | null;
    owner: string | null;
    routed_by: string | null;
    claimed_by: string | null;
    claimed_until: Date | null;
  }>;
  return r!;
}
async function events(id: string, type: string) {
  return (await db.pool.query(
    'SELECT actor, message, details, event_key FROM case_events WHERE case_id = ? AND event_type = ? ORDER BY id',
    [id, type],
  )) as Array<{ actor: string; message: string; details: unknown; event_key: string }>;
}

test('routeCase: the first matching rule assigns the case once; the same call again writes nothing', async () => {
  const { routeCase } = createCaseRoutingActivities({ cases: createMariaDbCaseRouting(db.pool), rules: RULES });
  assert.deepEqual(await routeCase({ caseId: 'c1', category: 'Invoice', language: 'en' }), {
    team: 'billing',
    owner: null,
    rule: 'billing',
  });
  assert.deepEqual(await routeCase({ caseId: 'c1', category: 'invoice', language: 'en' }), {
    team: 'billing',
    owner: null,
    rule: 'billing',
  });
  assert.deepEqual(await row('c1'), { team: 'billing', owner: null, routed_by: 'rule:billing', claimed_by: null, claimed_until: null });
  const first = await events('c1', 'case_assigned');
  assert.equal(first.length, 1, 'a retried activity adds no second event');
  assert.equal(first[0]!.actor, 'routing');
  assert.match(first[0]!.message, /assigned to billing by rule billing/);
  // A later draft of the case in another category: the next rule applies, one more event.
  assert.deepEqual(await routeCase({ caseId: 'c1', category: 'question', language: 'en' }), {
    team: 'international',
    owner: null,
    rule: 'english',
  });
  assert.equal((await events('c1', 'case_assigned')).length, 2);
  // Nothing matches: the case keeps what it had.
  assert.deepEqual(await routeCase({ caseId: 'c1', category: 'question', language: 'de' }), {
    team: 'international',
    owner: null,
    rule: null,
  });
  assert.deepEqual(await routeCase({ caseId: 'c2' }), { team: null, owner: 'rita', rule: 'vip' });
});

test('no rules file: nothing is routed or written', async () => {
  const { routeCase } = createCaseRoutingActivities({ cases: createMariaDbCaseRouting(db.pool), rules: [] });
  assert.deepEqual(await routeCase({ caseId: 'c1', category: 'invoice' }), { team: null, owner: null, rule: null });
  assert.equal((await row('c1')).routed_by, null);
  assert.equal((await events('c1', 'case_assigned')).length, 0);
});

test('a case that does not exist is a permanent failure, not a retry', async () => {
  const { routeCase } = createCaseRoutingActivities({ cases: createMariaDbCaseRouting(db.pool), rules: RULES });
  await assert.rejects(routeCase({ caseId: 'nope' }), (err: unknown) => err instanceof PermanentError && /no case nope/.test(err.message));
  await assert.rejects(createMariaDbCaseRouting(db.pool).assignCase('nope', { team: 'x' }, 'otto'), PermanentError);
});

test('a person assigning by hand wins over the rules, also over later routing', async () => {
  const cases = createMariaDbCaseRouting(db.pool);
  const { routeCase } = createCaseRoutingActivities({ cases, rules: RULES });
  await routeCase({ caseId: 'c1', category: 'invoice' });
  assert.deepEqual(await cases.assignCase('c1', { owner: 'otto' }, 'rita'), { team: 'billing', owner: 'otto', routedBy: 'person:rita' });
  assert.deepEqual(await routeCase({ caseId: 'c1', category: 'question', language: 'en' }), { team: 'billing', owner: 'otto', rule: null });
  assert.deepEqual(await row('c1'), { team: 'billing', owner: 'otto', routed_by: 'person:rita', claimed_by: null, claimed_until: null });
  // Rules that would match cannot overwrite it even when applied directly.
  assert.equal((await cases.applyRule('c1', { name: 'english', team: 'international', owner: null })).applied, false);
  const log = await events('c1', 'case_assigned');
  assert.equal(log.length, 2);
  assert.equal(log[1]!.actor, 'rita');
  assert.match(log[1]!.message, /assigned to otto \/ billing by rita/);
  const details = log[1]!.details as unknown;
  assert.deepEqual((typeof details === 'string' ? JSON.parse(details) : details).before, {
    team: 'billing',
    owner: null,
    routedBy: 'rule:billing',
  });
  // Clearing the team by hand; the same form sent twice writes one event.
  await cases.assignCase('c1', { team: null }, 'rita');
  await cases.assignCase('c1', { team: null }, 'rita');
  assert.equal((await row('c1')).team, null);
  assert.equal((await events('c1', 'case_assigned')).length, 3);
});

test('hand assignment refuses unknown or disabled users and names that cannot be stored; nothing changes', async () => {
  const cases = createMariaDbCaseRouting(db.pool);
  for (const [change, pattern] of [
    [{ owner: 'mallory' }, /no enabled inbox user named "mallory"/],
    [{ owner: 'gone' }, /no enabled inbox user named "gone"/],
    [{ team: 'x'.repeat(10_240) }, /the team must be 1-191 characters/],
    [{ team: 'a\u0000b' }, /the team must be/],
    [{ owner: "' OR 1=1 --" }, /no enabled inbox user/],
  ] as const)
    await assert.rejects(
      cases.assignCase('c1', change, 'rita'),
      (err: unknown) => err instanceof PermanentError && pattern.test(err.message),
    );
  assert.deepEqual(await row('c1'), { team: null, owner: null, routed_by: null, claimed_by: null, claimed_until: null });
  assert.equal((await events('c1', 'case_assigned')).length, 0);
});

test('claims: two reviewers claiming at once, one wins; the holder extends; release; expiry and take-over', async () => {
  const claims = createMariaDbCaseClaims(db.pool);
  // Separate pools: the two claims really run on two connections at the same moment.
  const pools: Pool[] = [createPool(db.url, 2), createPool(db.url, 2)];
  try {
    const [a, b] = pools.map((p) => createMariaDbCaseClaims(p));
    for (let round = 0; round < 20; round++) {
      await db.pool.query(`UPDATE cases SET claimed_by = NULL, claimed_until = NULL WHERE id = 'c1'`);
      const [ra, rb] = await Promise.all([a!.claim('c1', 'rita', 300), b!.claim('c1', 'otto', 300)]);
      assert.equal(Number(ra.claimed) + Number(rb.claimed), 1, `round ${round}: exactly one wins`);
      const winner = ra.claimed ? 'rita' : 'otto';
      assert.equal(ra.holder?.by, winner);
      assert.equal(rb.holder?.by, winner, 'the loser learns who holds it');
      assert.equal((await row('c1')).claimed_by, winner);
    }
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
  await db.pool.query(`UPDATE cases SET claimed_by = NULL, claimed_until = NULL WHERE id = 'c1'`);
  const first = await claims.claim('c1', 'rita', 300);
  assert.equal(first.claimed, true);
  assert.equal(first.tookOverFrom, null);
  const again = await claims.claim('c1', 'rita', 600);
  assert.equal(again.claimed, true);
  assert.ok(again.holder!.until.getTime() > first.holder!.until.getTime() + 200_000, 'the holder extends the claim');
  const other = await claims.claim('c1', 'otto', 300);
  assert.deepEqual({ claimed: other.claimed, by: other.holder?.by }, { claimed: false, by: 'rita' });
  assert.equal((await claims.current('c1'))?.by, 'rita');
  assert.equal(await claims.release('c1', 'otto'), false, "someone else's claim stays");
  assert.equal(await claims.release('c1', 'rita'), true);
  assert.equal(await claims.current('c1'), null);
  assert.equal((await claims.claim('c1', 'otto', 300)).tookOverFrom, null, 'a released case is free: no take-over');
  assert.equal((await events('c1', 'case_claim_taken_over')).length, 0, 'opening and releasing are not history');
  // otto's claim runs out; rita opens the case: a take-over, recorded once.
  await db.pool.query(`UPDATE cases SET claimed_until = NOW(3) - INTERVAL 1 SECOND WHERE id = 'c1'`);
  assert.equal(await claims.current('c1'), null, 'an expired claim is no claim');
  const taken = await claims.claim('c1', 'rita', 300);
  assert.deepEqual({ claimed: taken.claimed, from: taken.tookOverFrom, by: taken.holder?.by }, { claimed: true, from: 'otto', by: 'rita' });
  await claims.claim('c1', 'rita', 300);
  const log = await events('c1', 'case_claim_taken_over');
  assert.equal(log.length, 1);
  assert.equal(log[0]!.actor, 'rita');
  assert.match(log[0]!.message, /rita took over the case; otto's claim had expired/);
  // A case that does not exist cannot be claimed.
  assert.deepEqual(await claims.claim('nope', 'rita', 300), { claimed: false, holder: null, tookOverFrom: null });
});
