import net from 'node:net';

/**
 * How the server treats one connection:
 * - `ok`: a well-behaved server (250 after the final dot);
 * - `greeting421`: answers the connection with 421 and closes it;
 * - `resetAtRcpt`: resets the connection (TCP RST) when RCPT TO arrives;
 * - `dropAfterData`: reads the whole message, then drops the connection without replying;
 * - `silentAfterData`: reads the whole message and never replies;
 * - `reply451AfterData` / `reply554AfterData`: reads the whole message and refuses it.
 */
export type Behaviour =
  'ok' | 'greeting421' | 'resetAtRcpt' | 'dropAfterData' | 'silentAfterData' | 'reply451AfterData' | 'reply554AfterData';

export interface ReceivedData {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  behaviour: Behaviour;
}

export interface HostileSmtp {
  host: string;
  port: number;
  /** Every message whose DATA arrived complete (up to the final dot), whatever was answered. */
  received: ReceivedData[];
  /** Commands per connection, as sent by the client. */
  sessions: string[][];
  /**
   * Behaviours for the next connections, in order; after them, `ok`. Sessions waiting idle between
   * messages are ended, as a server that restarts into the new behaviour would: a client that keeps
   * sessions for the next message opens a new connection, which gets the planned behaviour.
   */
  plan(...behaviours: Behaviour[]): void;
  /**
   * Runs before a well-behaved 250 (null: none): e.g. filing the message in the sender's Sent
   * folder, as providers that keep sent mail do on receipt.
   */
  onAccept(fn: ((data: ReceivedData) => Promise<void>) | null): void;
  /**
   * The sessions idle now answer their next command with 421 and close, as a server whose idle
   * timeout passed unnoticed by the client (the connection looks open until it is used).
   */
  expireIdle(): void;
  stop(): Promise<void>;
}

/**
 * A raw SMTP server (no library on the receiving side) that can misbehave the way real servers
 * and networks do, and counts what it really received. Loopback only; no TLS, no AUTH.
 */
export async function startHostileSmtp(): Promise<HostileSmtp> {
  const received: ReceivedData[] = [];
  const sessions: string[][] = [];
  const queue: Behaviour[] = [];
  const sockets = new Set<net.Socket>();
  /** Sockets in a mail transaction (MAIL FROM until the answer to the message or RSET). */
  const busy = new Set<net.Socket>();
  const expired = new WeakSet<net.Socket>();
  let onAccept: ((data: ReceivedData) => Promise<void>) | null = null;

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      busy.delete(socket);
    });
    socket.on('error', () => undefined);
    const behaviour = queue.shift() ?? 'ok';
    const commands: string[] = [];
    sessions.push(commands);
    const say = (line: string) => {
      if (!socket.destroyed) socket.write(`${line}\r\n`);
    };
    if (behaviour === 'greeting421') {
      socket.end('421 4.3.2 Service not available, closing transmission channel\r\n');
      return;
    }
    say('220 hostile.test ESMTP ready');
    let buffer = Buffer.alloc(0);
    let inData = false;
    let mailFrom = '';
    let rcptTo: string[] = [];
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (inData) {
          // The message ends with CRLF . CRLF; the data starts right after the 354.
          const end = buffer.indexOf('\r\n.\r\n');
          const bare = buffer.subarray(0, 3).toString() === '.\r\n' ? 0 : -1;
          if (end < 0 && bare < 0) return;
          const raw = bare === 0 ? Buffer.alloc(0) : buffer.subarray(0, end + 2);
          buffer = buffer.subarray(bare === 0 ? 3 : end + 5);
          inData = false;
          busy.delete(socket);
          const data: ReceivedData = { mailFrom, rcptTo, raw: unstuff(raw), behaviour };
          received.push(data);
          if (behaviour === 'dropAfterData') {
            socket.destroy();
            return;
          }
          if (behaviour === 'silentAfterData') return;
          if (behaviour === 'reply451AfterData') say('451 4.3.0 Temporary failure, try again later');
          else if (behaviour === 'reply554AfterData') say('554 5.6.0 Message refused');
          else if (onAccept) {
            // The client waits for this answer before its next command: nothing is left unread.
            const queued = `250 2.0.0 Ok: queued as H${received.length}`;
            void onAccept(data).then(
              () => say(queued),
              () => say('451 4.3.0 Could not file the message'),
            );
            return;
          } else say(`250 2.0.0 Ok: queued as H${received.length}`);
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.subarray(0, eol).toString('utf8');
        buffer = buffer.subarray(eol + 2);
        commands.push(line);
        if (expired.has(socket)) {
          socket.end('421 4.4.2 hostile.test Error: timeout exceeded\r\n');
          return;
        }
        const verb = line.split(/[ :]/)[0]!.toUpperCase();
        if (verb === 'EHLO') {
          say('250-hostile.test');
          say('250-8BITMIME');
          say('250 SMTPUTF8');
        } else if (verb === 'HELO') say('250 hostile.test');
        else if (verb === 'MAIL') {
          busy.add(socket);
          mailFrom = /<([^>]*)>/.exec(line)?.[1] ?? '';
          rcptTo = [];
          say('250 2.1.0 Ok');
        } else if (verb === 'RCPT') {
          if (behaviour === 'resetAtRcpt') {
            socket.resetAndDestroy();
            return;
          }
          rcptTo.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          say('250 2.1.5 Ok');
        } else if (verb === 'DATA') {
          inData = true;
          say('354 End data with <CR><LF>.<CR><LF>');
        } else if (verb === 'RSET') {
          busy.delete(socket);
          say('250 2.0.0 Ok');
        } else if (verb === 'NOOP') say('250 2.0.0 Ok');
        else if (verb === 'QUIT') {
          socket.end('221 2.0.0 Bye\r\n');
          return;
        } else say('502 5.5.2 Command not recognized');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    host: '127.0.0.1',
    port,
    received,
    sessions,
    plan(...behaviours) {
      queue.push(...behaviours);
      for (const s of sockets) if (!busy.has(s)) s.end();
    },
    expireIdle() {
      for (const s of sockets) if (!busy.has(s)) expired.add(s);
    },
    onAccept(fn) {
      onAccept = fn;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Undoes SMTP dot-stuffing (a leading dot doubled by the client). */
function unstuff(raw: Buffer): Buffer {
  return Buffer.from(raw.toString('binary').replace(/(^|\r\n)\.\./g, '$1.'), 'binary');
}
