import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Connection } from '@temporalio/client';
import { startTemporalDevServer } from '../../scripts/services/temporal-dev-server';

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
