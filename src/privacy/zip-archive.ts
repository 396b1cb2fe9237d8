import { createWriteStream } from 'node:fs';
import { Zip, ZipDeflate } from 'fflate';

/** A zip file written as it is filled: one entry at a time, never the whole archive in memory. */
export interface ZipArchive {
  add(name: string, data: Uint8Array | string): void;
  close(): Promise<void>;
}

/** Creates `file` (mode 0600: it holds personal data) and streams entries into it. */
export function createZipArchive(file: string): ZipArchive {
  const out = createWriteStream(file, { mode: 0o600, flags: 'wx' });
  let failure: Error | null = null;
  out.on('error', (err) => (failure = err));
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
  });
  const zip = new Zip((err, chunk, final) => {
    if (err) failure = err;
    else out.write(chunk);
    if (final || err) out.end();
  });
  return {
    add(name, data) {
      if (failure) throw failure;
      const entry = new ZipDeflate(name, { level: 6 });
      zip.add(entry);
      entry.push(typeof data === 'string' ? new TextEncoder().encode(data) : data, true);
    },
    async close() {
      zip.end();
      await done;
      if (failure) throw failure;
    },
  };
}
