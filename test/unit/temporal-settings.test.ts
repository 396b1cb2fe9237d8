/**
 * Reaching a Temporal that is not the stack's own, without servers: the certificate settings are
 * PEM files or a clear configuration error, a refused connection is told in the operator's terms,
 * and what an administrator must do by hand names the commands. The same paths against real
 * servers (nginx in front of the dev server): test/e2e/temporal-tls.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/platform/errors';
import { explainTemporalConnectFailure } from '../../src/platform/temporal-connect-error';
import { namespaceByHand, retentionByHand, searchAttributesByHand } from '../../src/operations/temporal-by-hand';
import { searchAttributesFinding } from '../../src/operations/doctor-checks';
import { refusedByServer, serverReason } from '../../src/platform/grpc-status';

const base = { IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'secret' };
const dir = mkdtempSync(path.join(tmpdir(), 'temporal-settings-'));
const file = (name: string, text: string) => {
  writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};
const PEM_CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const PEM_KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';

test('TEMPORAL_TLS_CA / _CERT / _KEY must hold PEM: an empty or DER file is a configuration error naming the setting', () => {
  const c = loadConfig({ ...base, TEMPORAL_TLS_CA: file('ca.pem', PEM_CERT), TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' });
  assert.equal(c.security.temporal.tls?.serverName, 'temporal.internal');
  assert.ok(c.security.temporal.tls?.serverRootCa?.includes('BEGIN CERTIFICATE'));
  assert.throws(
    () =>
      loadConfig({
        ...base,
        TEMPORAL_TLS_CA: file('empty.pem', ''),
        TEMPORAL_TLS_CERT: file('client.der', '\x30\x82\x01'),
        TEMPORAL_TLS_KEY: file('client.key', PEM_KEY),
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /TEMPORAL_TLS_CA names a file without a PEM CA certificate \(-----BEGIN …\): ".*empty\.pem"/);
      assert.match(err.message, /TEMPORAL_TLS_CERT names a file without a PEM certificate/);
      assert.doesNotMatch(err.message, /TEMPORAL_TLS_KEY/);
      return true;
    },
  );
});

/** The errors as the SDK gives them (recorded against nginx in front of the dev server). */
const clientError = (code: number, details: string) =>
  Object.assign(new Error('Failed to connect to Temporal server'), {
    cause: Object.assign(new Error(`${code} X: ${details}`), { code, details }),
  });
const nativeError = (status: string) =>
  new Error(
    `Failed to call GetSystemInfo: code: 'Internal error', message: "protocol error: received message with invalid compression flag: 60 (valid flags are 0 and 1) while receiving response with status: ${status}"`,
  );

test('a refused connection is told by its cause: API key, client certificate, TLS handshake; else the caller’s general hint', () => {
  const tls = { serverRootCa: Buffer.from(PEM_CERT) };
  const withPair = { tls: { ...tls, clientCert: Buffer.from(PEM_CERT), clientKey: Buffer.from(PEM_KEY) } };
  for (const err of [clientError(16, 'Received HTTP status code 401'), nativeError('401 Unauthorized')]) {
    assert.match(explainTemporalConnectFailure(err, { tls })!, /wants credentials \(401 Unauthorized\): set TEMPORAL_API_KEY/);
    assert.match(explainTemporalConnectFailure(err, { tls, apiKey: 'k' })!, /refused the API key .*check TEMPORAL_API_KEY/);
  }
  for (const err of [clientError(13, 'Received HTTP status code 400'), nativeError('400 Bad Request')]) {
    assert.match(explainTemporalConnectFailure(err, { tls })!, /wants a client certificate .*set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY/);
    assert.match(explainTemporalConnectFailure(err, withPair)!, /refused the client certificate/);
    assert.equal(explainTemporalConnectFailure(err, {}), undefined, 'plain text: a 400 is no certificate question');
  }
  const timeout = new Error('Failed to connect before the deadline');
  assert.match(
    explainTemporalConnectFailure(timeout, { tls }, 'self-signed certificate in certificate chain')!,
    /TLS handshake failed \(self-signed.*\): set TEMPORAL_TLS_CA/,
  );
  assert.equal(explainTemporalConnectFailure(timeout, { tls }), undefined);
  assert.equal(explainTemporalConnectFailure(new Error('connect ECONNREFUSED 127.0.0.1:7233'), {}), undefined);
});

test('refusals are PERMISSION_DENIED and UNIMPLEMENTED only; the reason is the server’s own words', () => {
  assert.equal(refusedByServer(Object.assign(new Error('7 PERMISSION_DENIED: Request unauthorized'), { code: 7 })), true);
  assert.equal(refusedByServer({ code: 12 }), true);
  for (const code of [3, 5, 6, 13, 14, 16, undefined]) assert.equal(refusedByServer({ code }), false, String(code));
  assert.equal(serverReason(new Error('7 PERMISSION_DENIED: Request unauthorized\n    at x')), 'Request unauthorized');
});

test('what to do by hand names the namespace, the attributes by type, and the tcld and temporal commands', () => {
  const sa = searchAttributesByHand('support.acct', ['EmailStatus', 'NeedsHuman', 'DraftVersion', 'Mailbox']);
  assert.match(
    sa,
    /EmailStatus and Mailbox of type Keyword, NeedsHuman of type Bool, DraftVersion of type Int to the namespace support\.acct/,
  );
  assert.match(
    sa,
    /`tcld namespace search-attributes add --namespace support\.acct --search-attribute EmailStatus=Keyword --search-attribute NeedsHuman=Bool --search-attribute DraftVersion=Int --search-attribute Mailbox=Keyword`/,
  );
  assert.match(
    sa,
    /`temporal operator search-attribute create --namespace support\.acct --name EmailStatus --type Keyword --name NeedsHuman --type Bool/,
  );
  assert.match(
    retentionByHand('support.acct', 30),
    /`tcld namespace retention set --namespace support\.acct --retention-days 30`.*--retention 720h`/,
  );
  assert.match(namespaceByHand('nope', 7), /create the namespace nope \(retention 7 days\).*--retention 168h`; or set TEMPORAL_NAMESPACE/);
});

test('doctor: missing search attributes where the operator API is refused get the by-hand fix, not `temporal setup`', () => {
  const found = new Map([['EmailStatus', 'KEYWORD']]);
  assert.equal(searchAttributesFinding(found).fix, 'email-rag temporal setup');
  const byHand = searchAttributesFinding(found, { byHandIn: 'support.acct' });
  assert.equal(byHand.verdict, 'fail');
  assert.match(byHand.detail, /not registered: EmailPriority, Mailbox/);
  assert.match(byHand.fix!, /tcld namespace search-attributes add --namespace support\.acct --search-attribute EmailPriority=Keyword/);
  assert.doesNotMatch(byHand.fix!, /EmailStatus=/, 'only the missing ones');
});
