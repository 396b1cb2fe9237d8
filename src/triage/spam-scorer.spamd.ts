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
import type { SpamClass, SpamLearner, SpamScore, SpamScorer } from './spam-scorer.port';
import type { SpamdOptions } from './triage.config';

/** Where spamd listens and how long it may take. */
type SpamdAddress = Pick<SpamdOptions, 'host' | 'port' | 'timeoutMs'>;

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

/** One request to spamd over one connection: the request line and headers, the message, the whole answer. */
function exchange(options: SpamdAddress, head: string, raw: Buffer): Promise<string> {
  const describe = `spamd ${options.host}:${options.port}`;
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (err: Error | null, value?: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (err) reject(new Error(`${describe}: ${err.message}`));
      else resolve(value!);
    };
    socket.setTimeout(options.timeoutMs, () => done(new Error(`no answer within ${options.timeoutMs} ms`)));
    socket.on('error', (err) => done(err));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => done(null, Buffer.concat(chunks).toString('latin1')));
    socket.connect(options.port, options.host, () => {
      socket.write(`${head}Content-length: ${raw.length}\r\n\r\n`);
      socket.write(raw);
      // spamd reads Content-length bytes; half-closing tells it nothing more comes.
      socket.end();
    });
  });
}

export function createSpamdScorer(options: SpamdAddress): SpamScorer {
  const describe = `spamd ${options.host}:${options.port}`;
  return {
    describe,
    async score(raw: Buffer): Promise<SpamScore | null> {
      if (raw.length > MAX_SPAMD_BYTES) return null;
      const answer = await exchange(options, 'SYMBOLS SPAMC/1.5\r\n', raw);
      try {
        return parseSpamdAnswer(answer);
      } catch (err) {
        throw new Error(`${describe}: ${(err as Error).message}`);
      }
    },
  };
}

/**
 * Parses spamd's answer to TELL: `DidSet: local` when the Bayes database learned the message,
 * no DidSet when it had learned it as this class before; anything else is an error (spamd started
 * without --allow-tell answers EX_NOPERM, 77).
 */
export function parseTellAnswer(answer: string): 'learned' | 'known' {
  const [head = ''] = answer.split('\r\n\r\n');
  const status = /^SPAMD\/\d+\.\d+\s+(\d+)\s+(\S+)/.exec(head);
  if (!status) throw new Error(`spamd answered "${head.split('\r\n')[0]?.slice(0, 120) ?? ''}"`);
  if (status[1] !== '0')
    throw new Error(`spamd answered ${status[1]} ${status[2]}${status[1] === '77' ? ' (started without --allow-tell?)' : ''}`);
  return /^DidSet:\s*local/im.test(head) ? 'learned' : 'known';
}

/**
 * Teaching spamd's Bayes database (SPAMC/1.5 TELL, what `spamc -L spam|ham` sends): spamd must run
 * with --allow-tell. Learning is idempotent on spamd's side: it keeps the message's id in its
 * bayes_seen database and does nothing when the same message comes again as the same class.
 */
export function createSpamdLearner(options: SpamdAddress): SpamLearner {
  const describe = `spamd ${options.host}:${options.port}`;
  return {
    describe,
    async learn(raw: Buffer, cls: SpamClass): Promise<'learned' | 'known'> {
      if (raw.length > MAX_SPAMD_BYTES)
        throw new Error(`${describe}: message of ${raw.length} bytes is above the ${MAX_SPAMD_BYTES} bytes spamd is sent`);
      const answer = await exchange(options, `TELL SPAMC/1.5\r\nMessage-class: ${cls}\r\nSet: local\r\n`, raw);
      try {
        return parseTellAnswer(answer);
      } catch (err) {
        throw new Error(`${describe}: ${(err as Error).message}`);
      }
    },
  };
}
