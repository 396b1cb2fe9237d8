/** The codec server's readiness: its keys are loaded and a test payload goes through encode and decode unchanged. */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { HEALTH_DEPENDENCIES } from './operations.contract';
import type { ReadinessProbe } from './readiness';

const PROBE_DATA = new TextEncoder().encode('"email-rag readiness"');

export function codecProbe(codec: PayloadCodec): ReadinessProbe {
  return {
    dependency: HEALTH_DEPENDENCIES.codec,
    async run() {
      const probe: Payload = { metadata: { encoding: new TextEncoder().encode('json/plain') }, data: PROBE_DATA };
      const [sealed] = await codec.encode([probe]);
      if (!sealed || Buffer.from(sealed.data ?? []).equals(Buffer.from(PROBE_DATA)))
        throw new Error('the test payload came back unencrypted from encode: no payload key is active');
      const [opened] = await codec.decode([sealed]);
      if (!opened || !Buffer.from(opened.data ?? []).equals(Buffer.from(PROBE_DATA)))
        throw new Error('the test payload did not decode to what was encoded');
    },
  };
}
