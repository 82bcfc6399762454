/**
 * The connection in-process, through a client library: handler wiring, cancellation,
 * server-to-client requests, shutdown and end of input.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CancellationToken, CancellationTokenSource } from 'vscode-jsonrpc/node';
import type { PromptResult } from '#protocol';
import type { ConnectionEnd } from '../src/connection/connection.ts';
import { rejection, result, started } from './helpers/connection-pair.ts';

describe('connection (in-process)', () => {
  test('initialize lists lifecycle, runtime and sent methods; handlers get validated params', async () => {
    const { connection, init } = await started();
    assert.deepEqual(init.capabilities.methods, [
      'initialize',
      'initialized',
      'shutdown',
      'exit',
      '$/cancelRequest',
      'prompt',
      'phase',
      'approve',
    ]);
    assert.deepEqual(await connection.sendRequest('prompt', { text: 'echo me' }), result('echo me'));
    const invalid = await rejection(connection.sendRequest('prompt', { text: 42 }));
    assert.equal(invalid.code, -32602);
    connection.dispose();
  });

  test('$/cancelRequest aborts the handler and is answered RequestCancelled', async () => {
    const { connection, events } = await started();
    const source = new CancellationTokenSource();
    const pending = connection.sendRequest('prompt', { text: 'slow' }, source.token);
    while (!events.includes('slow started')) await new Promise((resolve) => setTimeout(resolve, 5));
    source.cancel();
    const cancelled = await rejection(pending);
    assert.equal(cancelled.code, -32800);
    assert.equal(cancelled.data?.retryable, true);
    assert.deepEqual(await connection.sendRequest('prompt', { text: 'still here' }), result('still here'));
    connection.dispose();
  });

  test('a handler failure is InternalError and the server keeps serving; a fault keeps its code', async () => {
    const { connection } = await started();
    const internal = await rejection(connection.sendRequest('prompt', { text: 'boom' }));
    assert.equal(internal.code, -32603);
    assert.match(internal.message, /Internal error in prompt: kaboom/);
    const fault = await rejection(connection.sendRequest('prompt', { text: 'fault' }));
    assert.equal(fault.code, -32602);
    assert.deepEqual(fault.data, { retryable: false, issues: [] });
    assert.deepEqual(await connection.sendRequest('prompt', { text: 'ok' }), result('ok'));
    connection.dispose();
  });

  test('phases reach the client in order before the response', async () => {
    const { connection } = await started();
    const seen: string[] = [];
    connection.onNotification('phase', (params: { text: string }) => {
      seen.push(params.text);
    });
    await connection.sendRequest('prompt', { text: 'phases' });
    assert.deepEqual(seen, ['t1', 't2', 't3']);
    connection.dispose();
  });

  test('approve round trip: the decision is validated; an invalid answer becomes a rejection', async () => {
    const { connection } = await started();
    let answer: unknown = { decision: 'feedback', feedback: 'use ls -la' };
    connection.onRequest('approve', () => answer);
    assert.deepEqual(
      await connection.sendRequest('prompt', { text: 'approve' }),
      result('{"decision":"feedback","feedback":"use ls -la"}'),
    );
    answer = { decision: 'maybe' };
    const outcome = await connection.sendRequest<PromptResult>('prompt', { text: 'approve' });
    assert.match(outcome.output, /^rejected: the client answered approve with an invalid result/);
    connection.dispose();
  });

  test('cancelling a prompt cancels its pending approve on the wire', async () => {
    const { connection } = await started();
    let approveCancelled: () => void = () => {};
    const cancelledOnWire = new Promise<void>((resolve) => {
      approveCancelled = resolve;
    });
    let asked: () => void = () => {};
    const approveArrived = new Promise<void>((resolve) => {
      asked = resolve;
    });
    connection.onRequest('approve', (_params: unknown, token: CancellationToken) => {
      asked();
      return new Promise((resolve) => {
        token.onCancellationRequested(() => {
          approveCancelled();
          resolve({ decision: 'allow' });
        });
      });
    });
    const source = new CancellationTokenSource();
    const pending = connection.sendRequest('prompt', { text: 'approve' }, source.token);
    await approveArrived;
    source.cancel();
    await cancelledOnWire;
    const outcome = (await pending) as PromptResult;
    assert.equal(outcome.status, 'cancelled');
    connection.dispose();
  });

  test('shutdown aborts running requests, shuts the runtime down once, then refuses requests', async () => {
    const { connection, events, server } = await started();
    const slow = rejection(connection.sendRequest('prompt', { text: 'slow' }));
    while (!events.includes('slow started')) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await connection.sendRequest('shutdown'), null);
    assert.equal((await slow).code, -32800);
    assert.equal((await rejection(connection.sendRequest('prompt', { text: 'late' }))).code, -32600);
    await connection.sendNotification('exit');
    assert.deepEqual(await server.ended, { reason: 'exit', exitCode: 0 } satisfies ConnectionEnd);
    assert.deepEqual(
      events.filter((event) => event === 'runtime shutdown'),
      ['runtime shutdown'],
    );
  });

  test('end of input cancels pending work, shuts the runtime down, and ends with code 1', async () => {
    const { toServer, connection, events, server } = await started();
    void connection.sendRequest('prompt', { text: 'slow' }).catch(() => {});
    while (!events.includes('slow started')) await new Promise((resolve) => setTimeout(resolve, 5));
    toServer.end();
    assert.deepEqual(await server.ended, { reason: 'input_closed', exitCode: 1 });
    assert.ok(events.includes('runtime shutdown'));
    connection.dispose();
  });
});
