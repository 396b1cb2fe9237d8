/**
 * The bench's /proc sampler must hold a bounded amount however long a run takes: the worker ends
 * and starts hundreds of threads a minute, and copying every thread ever seen into every sample
 * once grew the bench's heap to 4 GB. Samples this test process itself (Linux /proc).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { sampleProcess } from '../../scripts/bench/proc-sampler';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A thread that burns a little CPU, is sampled while it lives, and ends. The explicit sample makes
 * sure the sampler saw it: on a busy machine a 30 ms thread can start and end between two timed samples.
 */
async function shortLivedThread(sampler: ReturnType<typeof sampleProcess>): Promise<void> {
  const w = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const t = Date.now(); while (Date.now() - t < 30) {}
     parentPort.once('message', () => process.exit(0));
     parentPort.postMessage('burnt');`,
    { eval: true },
  );
  await new Promise((resolve) => w.once('message', resolve));
  sampler.sample();
  w.postMessage('end');
  await new Promise((resolve) => w.once('exit', resolve));
}

test('threads that ended leave the samples but keep their CPU; the sample count stays under its cap', async () => {
  const sampler = sampleProcess(process.pid, 2, 32);
  try {
    const t0 = Date.now();
    for (let i = 0; i < 6; i++) await shortLivedThread(sampler);
    sampler.sample(); // a phase boundary: never thinned away
    const boundary = Date.now();
    await sleep(300);
    const samples = sampler.classified();
    assert.ok(samples.length < 32, `${samples.length} samples held`);
    assert.ok(sampler.endedThreads() >= 6, `${sampler.endedThreads()} ended threads seen`);
    const last = samples.at(-1)!;
    // Only live threads are kept per sample; the ended ones are summed per class.
    assert.ok(last.byThread.size < 6 + 30, `${last.byThread.size} threads in one sample`);
    const total = (s: (typeof samples)[number]) => Object.values(s.cpu).reduce((a, b) => a + b, 0);
    for (let i = 1; i < samples.length; i++) {
      assert.ok(total(samples[i]!) >= total(samples[i - 1]!) - 1e-9, 'cumulative CPU never falls when a thread ends');
      assert.ok(samples[i]!.t >= samples[i - 1]!.t, 'samples stay in time order');
    }
    assert.ok(
      samples.some((s) => s.pinned && s.t >= boundary - 5 && s.t <= Date.now()),
      'the explicit sample survived thinning',
    );
    assert.ok(sampler.maxRss(t0, Date.now()) > 0);
  } finally {
    sampler.stop();
  }
});
