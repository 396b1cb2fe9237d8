import { FAILURE_TYPES } from './contract';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { PermanentError } from './errors';
import type { PayloadKeys } from './platform.config';

/** The `encoding` metadata of an encrypted payload; anything else passes through untouched. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER_METADATA = 'encryption-cipher';
const CIPHER = 'AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const str = (b: Uint8Array | null | undefined): string => (b ? new TextDecoder().decode(b) : '');

/**
 * Encrypts every payload (workflow inputs, results, signals, updates, queries, summaries) with
 * AES-256-GCM under the active key; the key id travels in the payload's metadata, so a payload
 * written under an older key still decodes after rotation as long as that key stays configured.
 * The whole original payload (metadata and data) is sealed; the key id is bound as associated
 * data, so a payload relabelled with another id does not decode.
 * Payloads without the encrypted encoding (histories recorded before encryption was switched on)
 * are returned unchanged: replay and old workflows keep working.
 */
export function createEncryptionCodec(keys: PayloadKeys): PayloadCodec {
  const active = keys.keys.get(keys.activeKeyId);
  if (!active) throw new PermanentError(`active payload key ${keys.activeKeyId} is not configured`, FAILURE_TYPES.payloadKeyUnknown);
  return {
    async encode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) => {
        const iv = randomBytes(IV_BYTES);
        const cipher = createCipheriv('aes-256-gcm', active, iv);
        cipher.setAAD(text(keys.activeKeyId));
        const plain = temporal.api.common.v1.Payload.encode(payload).finish();
        const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
        return {
          metadata: {
            encoding: text(ENCRYPTED_ENCODING),
            [KEY_ID_METADATA]: text(keys.activeKeyId),
            [CIPHER_METADATA]: text(CIPHER),
          },
          data: new Uint8Array(sealed),
        };
      });
    },
    async decode(payloads: Payload[]): Promise<Payload[]> {
      return payloads.map((payload) => {
        if (str(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
        const keyId = str(payload.metadata?.[KEY_ID_METADATA]);
        const key = keys.keys.get(keyId);
        if (!key) {
          throw new PermanentError(
            `payload encrypted with key "${keyId}", which is not in PAYLOAD_KEYS (keep retired keys configured until their histories are gone)`,
            FAILURE_TYPES.payloadKeyUnknown,
          );
        }
        const data = Buffer.from(payload.data ?? new Uint8Array());
        if (data.length < IV_BYTES + TAG_BYTES) throw new PermanentError('encrypted payload is truncated', FAILURE_TYPES.payloadCorrupt);
        const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
        decipher.setAAD(text(keyId));
        decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
        let plain: Buffer;
        try {
          plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
        } catch {
          throw new PermanentError(
            `encrypted payload does not authenticate under key "${keyId}" (altered, or a different key with that id)`,
            FAILURE_TYPES.payloadCorrupt,
          );
        }
        const decoded = temporal.api.common.v1.Payload.decode(plain);
        return { metadata: decoded.metadata, data: decoded.data };
      });
    },
  };
}
