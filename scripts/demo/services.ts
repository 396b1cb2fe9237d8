import fs from 'node:fs';
import net from 'node:net';
import { dropDatabase, migrate, type MigrationResult } from '../../src/platform/migrate.mariadb';
import { startDovecot, type DovecotServer } from '../../test/support/services/dovecot';
import { freePort } from '../../test/support/services/ports';
import { startSmtpSink, type SmtpSink } from '../../test/support/services/smtp-sink';
import { startTemporalDevServer, type TemporalDevServer } from '../../test/support/services/temporal-dev-server';
import type { Cleanup } from './step';

export const DEFAULT_DATABASE_URL = 'mariadb://root@127.0.0.1:3306/email_rag';

/** The well-known ports when they are free, so the Web UI is where Temporal's docs say it is. */
export async function temporalPorts(): Promise<{ port: number; uiPort: number }> {
  const port = (await isFree(7233)) ? 7233 : await freePort();
  let uiPort = (await isFree(8233)) ? 8233 : await freePort();
  while (uiPort === port) uiPort = await freePort();
  return { port, uiPort };
}

export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A fresh Temporal dev server with the Web UI (`extraArgs`, e.g. its codec endpoint); its SQLite data is wiped first. */
export async function startTemporal(
  dataDir: string,
  cleanup: Cleanup,
  extraArgs: string[] = [],
): Promise<TemporalDevServer & { uiUrl: string }> {
  fs.rmSync(dataDir, { recursive: true, force: true });
  const ports = await temporalPorts();
  const temporal = await startTemporalDevServer({ dataDir, ...ports, headless: false, extraArgs });
  cleanup.add('Temporal dev server', () => temporal.stop());
  return { ...temporal, uiUrl: temporal.uiUrl ?? `http://127.0.0.1:${ports.uiPort}` };
}

/** A fresh Dovecot with the demo's accounts; yesterday's maildir is wiped first. */
export async function startMailServer(
  dir: string,
  users: ReadonlyArray<{ user: string; password: string }>,
  cleanup: Cleanup,
): Promise<DovecotServer> {
  fs.rmSync(dir, { recursive: true, force: true });
  const dovecot = await startDovecot({ dir, users: users.map((u) => ({ user: u.user, password: u.password })) });
  cleanup.add('Dovecot', () => dovecot.stop());
  return dovecot;
}

export async function startSmtp(dir: string, cleanup: Cleanup): Promise<SmtpSink> {
  fs.rmSync(dir, { recursive: true, force: true });
  const smtp = await startSmtpSink({ dir });
  cleanup.add('SMTP sink', () => smtp.stop());
  return smtp;
}

/** DATABASE_URL's server with another database name (user, password and options stay). */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function freshDatabase(url: string): Promise<MigrationResult> {
  await dropDatabase(url);
  return migrate(url);
}

/** For printing: the password is the user's, not the demo's. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
