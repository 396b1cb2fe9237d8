/**
 * SpamAssassin's spamd over its own protocol (SPAMC/1.5, the one `spamc` speaks): one connection
 * per message, the `SYMBOLS` command, which answers with the score, the required score and the
 * names of the rules that fired. Written here rather than with npm's `spamc` package: that one is
 * unmaintained since 2014, buffers callbacks without a timeout and does not report the required
 * score; the protocol is a request line, two headers and the message.
 *
 * It skips what spamc would: messages over MAX_SPAMD_BYTES are not sent (spamc's own default
 * limit is 500 KB), and the caller decides without a filter's verdict.
 */
import { Socket } from 'node:net';
import type { SpamScore, SpamScorer } from './spam-scorer.port';
import type { SpamdOptions } from './triage.config';

/** spamc's default size limit: larger mail is not worth scanning (and is rarely spam). */
export const MAX_SPAMD_BYTES = 500 * 1024;

/** `Spam: True ; 15.2 / 5.0` */
const SPAM_LINE = /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?\d+(?:\.\d+)?)\s*\/\s*(-?\d+(?:\.\d+)?)/im;

/** Parses spamd's answer to SYMBOLS; throws with the answer's first line when it is not one. */
export function parseSpamdAnswer(answer: string): SpamScore {
  const [head = '', ...rest] = answer.split('\r\n\r\n');
  const status = /^SPAMD\/\d+\.\d+\s+(\d+)\s+(\S+)/.exec(head);
  if (!status) throw new Error(`spamd answered "${head.split('\r\n')[0]?.slice(0, 120) ?? ''}"`);
  if (status[1] !== '0') throw new Error(`spamd answered ${status[1]} ${status[2]}`);
  const line = SPAM_LINE.exec(head);
  if (!line) throw new Error('spamd answered without a Spam: line');
  const rules = rest
    .join('\r\n\r\n')
    .split(/[,\s]+/)
    .filter((r) => /^[A-Z0-9_]+$/i.test(r));
  return { score: Number(line[2]), required: Number(line[3]), rules };
}

export function createSpamdScorer(options: SpamdOptions): SpamScorer {
  const describe = `spamd ${options.host}:${options.port}`;
  return {
    describe,
    score(raw: Buffer): Promise<SpamScore | null> {
      if (raw.length > MAX_SPAMD_BYTES) return Promise.resolve(null);
      return new Promise((resolve, reject) => {
        const socket = new Socket();
        const chunks: Buffer[] = [];
        let settled = false;
        const done = (err: Error | null, value?: SpamScore) => {
          if (settled) return;
          settled = true;
          socket.destroy();
          if (err) reject(new Error(`${describe}: ${err.message}`));
          else resolve(value!);
        };
        socket.setTimeout(options.timeoutMs, () => done(new Error(`no answer within ${options.timeoutMs} ms`)));
        socket.on('error', (err) => done(err));
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('end', () => {
          try {
            done(null, parseSpamdAnswer(Buffer.concat(chunks).toString('latin1')));
          } catch (err) {
            done(err as Error);
          }
        });
        socket.connect(options.port, options.host, () => {
          socket.write(`SYMBOLS SPAMC/1.5\r\nContent-length: ${raw.length}\r\n\r\n`);
          socket.write(raw);
          // spamd reads Content-length bytes; half-closing tells it nothing more comes.
          socket.end();
        });
      });
    },
  };
}
