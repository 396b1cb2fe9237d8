import { writeFileSync } from 'node:fs';

/** One registry entry as a test writes it; everything else comes from the file's defaults. */
export interface TestMailbox {
  id: string;
  user: string;
  passwordEnv: string;
  folders?: string[];
  sentFolder?: string;
  from: string;
  enabled?: boolean;
  team?: string;
  pollIntervalSeconds?: number;
  imap?: { host: string; port: number };
  smtp?: { host: string; port: number; user?: string; passwordEnv?: string };
  /** The provider files sent mail (`smtp.providerFilesSent: true`). */
  providerFilesSent?: boolean;
}

/** Writes a MAILBOXES_FILE (YAML, version 1) for `entries`, with a comment an edit must keep. */
export function writeRegistry(file: string, entries: TestMailbox[]): void {
  const lines = ['# mailboxes of this installation', 'version: 1', 'mailboxes:'];
  for (const e of entries) {
    lines.push(`  - id: ${e.id}`);
    if (e.enabled !== undefined) lines.push(`    enabled: ${e.enabled}`);
    if (e.team) lines.push(`    team: ${e.team}`);
    lines.push('    imap:');
    if (e.imap) lines.push(`      host: ${e.imap.host}`, `      port: ${e.imap.port}`);
    lines.push(`      user: ${e.user}`, `      password: { env: ${e.passwordEnv} }`);
    lines.push(`      folders: [${(e.folders ?? ['INBOX']).join(', ')}]`);
    if (e.sentFolder) lines.push(`      sentFolder: ${e.sentFolder}`);
    if (e.pollIntervalSeconds) lines.push(`      pollIntervalSeconds: ${e.pollIntervalSeconds}`);
    lines.push('    smtp:');
    if (e.smtp) lines.push(`      host: ${e.smtp.host}`, `      port: ${e.smtp.port}`);
    if (e.smtp?.user) lines.push(`      user: ${e.smtp.user}`, `      password: { env: ${e.smtp.passwordEnv} }`);
    lines.push(`      from: "${e.from}"`);
    if (e.providerFilesSent) lines.push('      providerFilesSent: true');
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}
