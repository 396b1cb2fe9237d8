import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { ApplicationFailure, defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  decodeOptionalFailureToOptionalError,
  encodeErrorToFailure,
  loadDataConverter,
} from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA, createEncryptionCodec } from '../../src/platform/encryption-codec';
import { temporalConnectionOptions, temporalDataConverter } from '../../src/platform/temporal-connection';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';

const base = { IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'secret' };
const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');
const secret = { subject: 'Kündigung Vertrag 4711 – Frau Özdemir', body: 'IBAN DE89 3704 0044 0532 0130 00' };

function codecFor(env: Record<string, string>) {
  const keys = loadConfig({ ...base, ...env }).security.payloadKeys;
  assert.ok(keys, 'payload keys configured');
  return createEncryptionCodec(keys);
}

test('payloads are sealed with the active key: no plaintext, key id in the metadata, and they decode back exactly', async () => {
  const codec = codecFor({ PAYLOAD_KEYS: `k1:${k1}`, PAYLOAD_KEY_ID: 'k1' });
  const plain = defaultPayloadConverter.toPayload(secret);
  const [sealed] = await codec.encode([plain]);
  assert.ok(sealed);
  assert.equal(text(sealed.metadata?.encoding), ENCRYPTED_ENCODING);
  assert.equal(text(sealed.metadata?.[KEY_ID_METADATA]), 'k1');
  for (const needle of ['Özdemir', 'Vertrag 4711', 'DE89', 'json/plain']) {
    assert.ok(!Buffer.from(sealed.data ?? []).includes(Buffer.from(needle)), `${needle} leaked into the sealed bytes`);
  }
  const [again] = await codec.encode([plain]);
  assert.notDeepEqual(again?.data, sealed.data, 'a fresh IV per payload: equal inputs do not look equal');
  const [opened] = await codec.decode([sealed]);
  assert.deepEqual(defaultPayloadConverter.fromPayload(opened as Payload), secret);
  assert.equal(text(opened?.metadata?.encoding), 'json/plain', 'the original metadata is restored');
});

test('rotation: a payload sealed under the old key decodes after the active key changed; new ones use the new key', async () => {
  const before = codecFor({ PAYLOAD_KEYS: `2024:${k1}` });
  const [old] = await before.encode([defaultPayloadConverter.toPayload(secret)]);
  const after = codecFor({ PAYLOAD_KEYS: `2024:${k1},2025:${k2}`, PAYLOAD_KEY_ID: '2025' });
  assert.deepEqual(defaultPayloadConverter.fromPayload((await after.decode([old as Payload]))[0] as Payload), secret);
  const [fresh] = await after.encode([defaultPayloadConverter.toPayload('x')]);
  assert.equal(text(fresh?.metadata?.[KEY_ID_METADATA]), '2025');
  // Once the old key is removed, its payloads are refused with a reason, never returned as garbage.
  const retired = codecFor({ PAYLOAD_KEYS: `2025:${k2}` });
  await assert.rejects(retired.decode([old as Payload]), /key "2024", which is not in PAYLOAD_KEYS/);
});

test('payloads recorded before encryption pass through unchanged; tampered or relabelled ones are refused', async () => {
  const codec = codecFor({ PAYLOAD_KEYS: `a:${k1},b:${k2}`, PAYLOAD_KEY_ID: 'a' });
  const legacy = [
    defaultPayloadConverter.toPayload({ emailId: 'email-1' }),
    defaultPayloadConverter.toPayload(null),
    defaultPayloadConverter.toPayload(new Uint8Array([1, 2])),
  ];
  assert.deepEqual(await codec.decode(legacy), legacy);

  const [sealed] = await codec.encode([defaultPayloadConverter.toPayload(secret)]);
  const flipped = Buffer.from(sealed?.data ?? []);
  flipped.writeUInt8(flipped.readUInt8(flipped.length - 20) ^ 1, flipped.length - 20);
  await assert.rejects(codec.decode([{ ...sealed, data: flipped }]), /does not authenticate/);
  const relabelled = { ...sealed, metadata: { ...sealed?.metadata, [KEY_ID_METADATA]: Buffer.from('b') } };
  await assert.rejects(codec.decode([relabelled]), /does not authenticate under key "b"/);
  await assert.rejects(codec.decode([{ ...sealed, data: new Uint8Array(5) }]), /truncated/);
});

test('payload key configuration: bad keys are refused without echoing key material; no keys means no codec', () => {
  const short = Buffer.from('too short').toString('base64');
  assert.throws(
    () => loadConfig({ ...base, PAYLOAD_KEYS: `ok:${k1},weak:${short},bad id:${k2}`, PAYLOAD_KEY_ID: 'missing' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /key "weak" must be 32 bytes/);
      assert.match(err.message, /entries must be id:base64key/);
      assert.match(err.message, /PAYLOAD_KEY_ID "missing" is not among/);
      for (const key of [k1, k2, short]) assert.ok(!err.message.includes(key), 'key material in an error message');
      return true;
    },
  );
  assert.throws(() => loadConfig({ ...base, PAYLOAD_KEYS: `a:${k1},b:${k2}` }), /PAYLOAD_KEY_ID must name the active key/);
  assert.throws(() => loadConfig({ ...base, PAYLOAD_KEY_ID: 'a' }), /PAYLOAD_KEYS is empty/);
  assert.throws(() => loadConfig({ ...base, PAYLOAD_KEYS: `a:${k1},a:${k2}` }), /names key "a" twice/);
  assert.equal(temporalDataConverter(loadConfig(base)), undefined, 'without keys payloads stay plain JSON');
  assert.equal(temporalDataConverter(loadConfig({ ...base, PAYLOAD_KEYS: `a:${k1}` }))?.payloadCodecs?.length, 1);
});

test('TLS and API key settings become the connection options of every client and the worker', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'email-rag-tls-'));
  try {
    for (const f of ['c.pem', 'k.pem', 'ca.pem']) writeFileSync(path.join(dir, f), `-----BEGIN ${f}-----\n`);
    const plain = temporalConnectionOptions(loadConfig(base));
    assert.deepEqual(plain, { address: '127.0.0.1:7233' }, 'nothing set: plain text as before');

    const mtls = temporalConnectionOptions(
      loadConfig({
        ...base,
        TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
        TEMPORAL_TLS_CERT: path.join(dir, 'c.pem'),
        TEMPORAL_TLS_KEY: path.join(dir, 'k.pem'),
        TEMPORAL_TLS_CA: path.join(dir, 'ca.pem'),
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      }),
    );
    assert.equal(mtls.address, 'ns.acct.tmprl.cloud:7233');
    assert.equal(mtls.tls?.serverNameOverride, 'temporal.internal');
    assert.equal(text(mtls.tls?.clientCertPair?.crt), '-----BEGIN c.pem-----\n');
    assert.equal(text(mtls.tls?.clientCertPair?.key), '-----BEGIN k.pem-----\n');
    assert.equal(text(mtls.tls?.serverRootCACertificate), '-----BEGIN ca.pem-----\n');
    assert.equal(mtls.apiKey, undefined);

    const cloud = temporalConnectionOptions(loadConfig({ ...base, TEMPORAL_API_KEY: 'tcld-key' }));
    assert.deepEqual(cloud.tls, {}, 'an API key travels over TLS with the system roots');
    assert.equal(cloud.apiKey, 'tcld-key');

    assert.throws(
      () => loadConfig({ ...base, TEMPORAL_TLS_CERT: path.join(dir, 'c.pem'), TEMPORAL_TLS_CA: path.join(dir, 'nope.pem') }),
      (err: unknown) => {
        assert.match((err as Error).message, /TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together/);
        assert.match((err as Error).message, /TEMPORAL_TLS_CA is not a readable file: ".*nope.pem" \(ENOENT\)/);
        return true;
      },
    );
    assert.throws(() => loadConfig({ ...base, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }), /cannot be combined/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('codec server settings: token length, CORS origins, port', () => {
  const c = loadConfig(base).security.codecServer;
  assert.deepEqual(c.corsOrigins, ['http://127.0.0.1:8233', 'http://localhost:8233']);
  assert.equal(c.port, 8234);
  assert.equal(c.token, undefined);
  assert.throws(() => loadConfig({ ...base, CODEC_TOKEN: 'short' }), /at least 16 characters/);
  assert.throws(() => loadConfig({ ...base, CODEC_CORS_ORIGINS: 'https://ui.example/path' }), /must be origins/);
  assert.throws(() => loadConfig({ ...base, CODEC_PORT: '70000' }), /CODEC_PORT/);
  assert.deepEqual(loadConfig({ ...base, CODEC_CORS_ORIGINS: 'https://ui.example/ , http://x:1' }).security.codecServer.corsOrigins, [
    'https://ui.example',
    'http://x:1',
  ]);
});

test('with encryption on, failure messages and stack traces are sealed too, and decode for the client', async () => {
  const converter = temporalDataConverter(loadConfig({ ...base, PAYLOAD_KEYS: `a:${k1}` }));
  assert.ok(converter?.failureConverterPath);
  const loaded = loadDataConverter(converter);
  const failure = await encodeErrorToFailure(
    loaded,
    ApplicationFailure.nonRetryable('recipient "ilse@kundin.example" refused', 'BAD_RECIPIENT'),
  );
  const bytes = Buffer.from(temporal.api.failure.v1.Failure.encode(failure).finish());
  assert.ok(!bytes.includes(Buffer.from('ilse@kundin.example')), 'the address is readable in the failure');
  assert.equal(failure.message, 'Encoded failure');
  assert.equal(failure.applicationFailureInfo?.type, 'BAD_RECIPIENT', 'the failure type stays readable for grouping');
  const back = await decodeOptionalFailureToOptionalError(loaded, failure);
  assert.match(back?.message ?? '', /recipient "ilse@kundin.example" refused/);
  // Without keys the failure stays as it always was.
  const plain = await encodeErrorToFailure(loadDataConverter(undefined), new Error('x@y refused'));
  assert.equal(plain.message, 'x@y refused');
});
