/**
 * Earned autonomy on its fixed labelled set (test/fixtures/autonomy/mails.yaml) through the
 * product's own parse, index and draft steps (the LLM double scripted with the set's drafts) and
 * the verdict under the default bars: deterministic, so the figures are a floor. No automatic send
 * may be flagged or touch a never-automatic topic; every verdict is the one the set expects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAutonomySet, runAutonomySet } from '../../scripts/eval/autonomy-run';
import { NEVER_AUTOMATIC_REASONS } from '../../src/autonomy/autonomy.contract';
import { DRAFT_FLAGS } from '../../src/drafting/drafting.contract';

test('the labelled set: routine mails of qualifying categories go alone, nothing flagged or never-automatic does', async () => {
  const set = loadAutonomySet();
  assert.ok(set.mails.length >= 20, 'a set of German and English mails of every label');
  const r = await runAutonomySet(set);
  assert.deepEqual(r.unsafe, [], 'no automatic send was flagged or about a never-automatic topic');
  assert.deepEqual(r.unexpected, [], 'every verdict is the one the set expects');
  assert.equal(r.mails, set.mails.length);
  assert.equal(r.autoSent, set.mails.filter((m) => m.expect === 'auto').length);
  assert.ok(r.autoSent >= 6, `floor: ${r.autoSent} automatic sends`);
  for (const [label, x] of Object.entries(r.byLabel)) if (label !== 'routine') assert.equal(x.auto, 0, label);
  // The draft step's own checks flagged what the guard and the Reply-To check are for.
  const flags = (id: string) => r.verdicts.find((v) => v.id === id)?.flags ?? [];
  assert.ok(flags('en-injection').includes('possible_prompt_injection'));
  assert.ok(flags('de-injection').includes('possible_prompt_injection'));
  assert.ok(flags('en-reply-to-mismatch').includes('reply_to_differs'));
  // An invented promise is caught by the grounding check, and the verdict names it.
  for (const id of ['en-invented-promise', 'de-invented-deadline']) {
    assert.ok(flags(id).includes(DRAFT_FLAGS.unsupportedClaims), id);
    const reasons = r.verdicts.find((v) => v.id === id)?.reasons ?? [];
    assert.ok(
      reasons.some((x) => x.startsWith(`${NEVER_AUTOMATIC_REASONS.unsupportedClaims}:`)),
      reasons.join('; '),
    );
  }
  // The routine drafts that go alone rest on the set's knowledge, sentence by sentence.
  for (const v of r.verdicts.filter((x) => x.send)) assert.ok(!v.flags.includes(DRAFT_FLAGS.unsupportedClaims), v.id);
  assert.ok(r.grounding.unsupported >= 2 && r.grounding.supported >= 10, JSON.stringify(r.grounding));
});
