import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';

export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client pair signed by a CA the server does not trust. */
  strangerCert: string;
  strangerKey: string;
}

/**
 * A throwaway PKI made with the openssl CLI (node:crypto cannot issue X.509 certificates): a CA,
 * a server certificate for `serverName` only (so connecting by IP needs the server name
 * override, unless `ip` is named too), a client certificate for mTLS, and a client pair from an unrelated CA. Files only.
 */
export function makeTestPki(dir: string, serverName: string, opts: { ip?: string } = {}): TestPki {
  const file = (name: string) => path.join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const ca = (name: string, cn: string) =>
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.pem`),
      '-days',
      '2',
      '-subj',
      `/CN=${cn}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
  const leaf = (name: string, cn: string, issuer: string, ext: string[]) => {
    writeFileSync(file(`${name}.ext`), `${ext.join('\n')}\n`);
    ssl('req', ...ec, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=${cn}`);
    ssl(
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file(`${issuer}.pem`),
      '-CAkey',
      file(`${issuer}.key`),
      '-CAcreateserial',
      '-out',
      file(`${name}.pem`),
      '-days',
      '2',
      '-extfile',
      file(`${name}.ext`),
    );
  };
  ca('ca', 'email-rag test CA');
  ca('stranger-ca', 'someone else');
  const common = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment'];
  leaf('server', serverName, 'ca', [
    ...common,
    'extendedKeyUsage=serverAuth',
    `subjectAltName=DNS:${serverName}${opts.ip ? `,IP:${opts.ip}` : ''}`,
  ]);
  leaf('client', 'email-rag-worker', 'ca', [...common, 'extendedKeyUsage=clientAuth']);
  leaf('stranger', 'email-rag-worker', 'stranger-ca', [...common, 'extendedKeyUsage=clientAuth']);
  return {
    caCert: file('ca.pem'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
    clientCert: file('client.pem'),
    clientKey: file('client.key'),
    strangerCert: file('stranger.pem'),
    strangerKey: file('stranger.key'),
  };
}
