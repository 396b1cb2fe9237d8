import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createIngestActivities, type IngestSteps } from '../../src/email/intake/ingest.activities';
import { createSlots } from '../../src/platform/slots';

/** A promise with its resolve, to hold a holder inside its slot until the test lets it go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('slots: at most `size` holders; the others wait and go in arrival order', async () => {
  const slots = createSlots(2);
  const gates = [gate(), gate(), gate(), gate()];
  const order: number[] = [];
  const runs = gates.map((g, i) =>
    slots.run(async () => {
      order.push(i);
      await g.promise;
      return i;
    }),
  );
  await tick();
  assert.deepEqual(order, [0, 1]);
  assert.deepEqual([slots.inUse, slots.waiting], [2, 2]);
  gates[1]!.open();
  await tick();
  assert.deepEqual(order, [0, 1, 2], 'the freed slot went to the first waiter');
  assert.deepEqual([slots.inUse, slots.waiting], [2, 1]);
  for (const g of gates) g.open();
  assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3]);
  assert.deepEqual([slots.inUse, slots.waiting], [0, 0]);
});

test('slots: a holder that fails frees its slot and its caller gets the failure', async () => {
  const slots = createSlots(1);
  await assert.rejects(
    slots.run(async () => {
      throw new Error('imap down');
    }),
    /imap down/,
  );
  assert.equal(slots.inUse, 0);
  assert.equal(await slots.run(async () => 'next'), 'next');
});

test('slots: a size below 1 is refused', () => {
  assert.throws(() => createSlots(0), RangeError);
  assert.throws(() => createSlots(1.5), RangeError);
});

test('the intake runs at most WORKER_CONCURRENCY_MAIL_IO at once in a worker, also as a local activity', async () => {
  let running = 0;
  let most = 0;
  const release = gate();
  const steps: IngestSteps = {
    async fetchEmail() {
      running += 1;
      most = Math.max(most, running);
      await release.promise;
      running -= 1;
      return { size: 10 };
    },
    async parseEmail() {
      return { priority: 'normal', hasReplyAddress: true, attachments: 0 } as Awaited<ReturnType<IngestSteps['parseEmail']>>;
    },
    async indexEmail() {
      return { index: 'fake' };
    },
  };
  const { ingestEmail } = createIngestActivities(steps, 3);
  const intakes = Array.from({ length: 10 }, (_, i) => ingestEmail({ emailId: `e${i}`, source: { kind: 'stored' } }));
  await tick();
  assert.equal(running, 3, 'three fetches in flight, seven intakes wait for a slot');
  release.open();
  const results = await Promise.all(intakes);
  assert.equal(most, 3);
  assert.deepEqual(
    results.map((r) => r.index),
    Array.from({ length: 10 }, () => 'fake'),
  );
});
