import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Connection } from '@temporalio/client';
import { freePort } from '../support/services/ports';
import { startTemporalDevServer } from '../support/services/temporal-dev-server';

let dir: string;
let squatter: net.Server;
let takenPort: number;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'email-rag-devserver-'));
  // Another process holding a port the launcher was told is free.
  // It accepts and drops connections, as a foreign server would: a client must not mistake it for Temporal.
  squatter = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => squatter.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const address = squatter.address();
  takenPort = typeof address === 'object' && address ? address.port : 0;
});

after(async () => {
  await new Promise<void>((resolve) => squatter.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('free ports come from below the ephemeral range, and one process never gets the same port twice', async () => {
  const [ephemeralLow] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  assert.equal(new Set(ports).size, ports.length);
  for (const port of ports) {
    assert.ok(port >= 20_000 && port < (ephemeralLow ?? 32_768), `port ${port} outside 20000..${ephemeralLow}`);
  }
});

test('a port taken between choosing and binding: the start is retried on fresh ports and the server answers', async () => {
  const handed: number[] = [];
  let first = true;
  const server = await startTemporalDevServer({
    dataDir: path.join(dir, 'retry'),
    headless: true,
    pickPort: async () => {
      // The first port handed out (the frontend's) is already taken, as when a neighbour won the race.
      const port = first ? takenPort : await freePort();
      first = false;
      handed.push(port);
      return port;
    },
  });
  try {
    assert.notEqual(server.address, `127.0.0.1:${takenPort}`);
    const log = fs.readFileSync(server.logFile, 'utf8');
    assert.equal(log.match(/ temporal server start-dev /g)?.length, 2, 'two starts in the log');
    assert.match(log, /address already in use/i);
    const connection = await Connection.connect({ address: server.address });
    try {
      const info = await connection.workflowService.getSystemInfo({});
      assert.ok(info.serverVersion);
    } finally {
      await connection.close();
    }
  } finally {
    await server.stop();
  }
  assert.equal(handed[0], takenPort);
});

test('a port the caller fixed is not replaced: a taken one fails the start at once, naming the clash', async () => {
  await assert.rejects(startTemporalDevServer({ dataDir: path.join(dir, 'fixed'), headless: true, port: takenPort }), (err: Error) => {
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${takenPort} did not become ready`));
    assert.match(err.message, /address already in use/i);
    return true;
  });
  const log = fs.readFileSync(path.join(dir, 'fixed', 'temporal-dev-server.log'), 'utf8');
  assert.equal(log.match(/ temporal server start-dev /g)?.length, 1, 'one start only');
});

test('temporal dev server starts headless, answers gRPC and stops', { timeout: 120_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'email-rag-temporal-'));
  const server = await startTemporalDevServer({ dataDir, headless: true, namespace: 'email-rag-test' });
  try {
    assert.equal(server.namespace, 'email-rag-test');
    assert.equal(server.uiUrl, undefined);
    const connection = await Connection.connect({ address: server.address });
    try {
      const info = await connection.workflowService.getSystemInfo({});
      assert.ok(info.serverVersion, 'server reports a version');
      const ns = await connection.workflowService.describeNamespace({ namespace: 'email-rag-test' });
      assert.equal(ns.namespaceInfo?.name, 'email-rag-test');
    } finally {
      await connection.close();
    }
    assert.ok(fs.existsSync(path.join(dataDir, 'temporal.db')), 'SQLite file is in dataDir');
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  // Stopped means the port no longer answers.
  await assert.rejects(Connection.connect({ address: server.address, connectTimeout: 1_000 }));
});

test('temporal dev server serves the Web UI when not headless', { timeout: 120_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'email-rag-temporal-ui-'));
  const server = await startTemporalDevServer({ dataDir });
  try {
    assert.equal(server.namespace, 'default');
    assert.ok(server.uiUrl, 'uiUrl is set');
    const response = await fetch(server.uiUrl);
    assert.equal(response.status, 200);
    await response.arrayBuffer();
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
