import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  ApproveParams,
  ApproveResult,
  AskParams,
  errorCatalog,
  InitializeParams,
  isCompatibleVersion,
  isProtocolVersion,
  JsonRpcMessage,
  type MethodSpec,
  SessionRecord,
  methods,
  Phase,
  PromptParams,
  protocolTypes,
} from '../src/index.ts';

describe('protocol schemas', () => {
  test('initialize params: absolute workspace root, semver protocol version, unknown fields ignored', () => {
    const valid = {
      protocolVersion: '0.1.0',
      clientInfo: { name: 'nvim' },
      workspaceRoot: '/home/ada/p',
      capabilities: { approve: true, futureThing: 1 },
    };
    assert.deepEqual(InitializeParams.parse(valid).capabilities, { approve: true });
    assert.ok(InitializeParams.safeParse({ ...valid, workspaceRoot: 'C:\\code\\p' }).success);
    assert.ok(!InitializeParams.safeParse({ ...valid, workspaceRoot: 'p' }).success);
    assert.ok(!InitializeParams.safeParse({ ...valid, protocolVersion: '1' }).success);
    assert.ok(!InitializeParams.safeParse({ ...valid, clientInfo: { name: '' } }).success);
  });

  test('prompt params require text; mode is one of the routes', () => {
    assert.ok(PromptParams.safeParse({ text: '' }).success);
    assert.ok(!PromptParams.safeParse({}).success);
    assert.ok(PromptParams.safeParse({ text: 'x', mode: 'agent_task' }).success);
    assert.ok(!PromptParams.safeParse({ text: 'x', mode: 'yolo' }).success);
  });

  test('every phase type has its own fields and the common ones', () => {
    const base = { runId: 'r', sessionId: 's', agentId: 'a', seq: 0 };
    assert.ok(Phase.safeParse({ ...base, type: 'text', text: 'hi' }).success);
    assert.ok(!Phase.safeParse({ ...base, type: 'text' }).success);
    assert.ok(!Phase.safeParse({ ...base, type: 'text', text: 'hi', seq: -1 }).success);
    assert.ok(!Phase.safeParse({ ...base, type: 'teleport' }).success);
    assert.ok(
      Phase.safeParse({ ...base, type: 'error', message: 'rate limited', retryable: true, httpStatus: 429 })
        .success,
    );
    assert.ok(Phase.safeParse({ ...base, type: 'complete', status: 'cancelled', output: '' }).success);
    assert.ok(!Phase.safeParse({ ...base, type: 'complete', status: 'done', output: '' }).success);
  });

  test('approve: file changes carry a diff, commands a cwd; feedback needs text', () => {
    const ids = { sessionId: 's', runId: 'r', agentId: 'a', toolCallId: 't', toolName: 'run_command' };
    assert.ok(ApproveParams.safeParse({ kind: 'command', ...ids, command: 'ls', cwd: '/' }).success);
    assert.ok(!ApproveParams.safeParse({ kind: 'command', ...ids, command: 'ls' }).success);
    assert.ok(
      !ApproveParams.safeParse({ kind: 'file_change', ...ids, path: 'a', operation: 'modify' }).success,
    );
    assert.ok(ApproveResult.safeParse({ decision: 'allow_all' }).success);
    assert.ok(ApproveResult.safeParse({ decision: 'feedback', feedback: 'no' }).success);
    assert.ok(!ApproveResult.safeParse({ decision: 'feedback' }).success);
    assert.ok(!ApproveResult.safeParse({ decision: 'feedback', feedback: '' }).success);
    assert.ok(!ApproveResult.safeParse({ decision: 'sure' }).success);
  });

  test('ask options have a label and a value', () => {
    const base = { sessionId: 's', runId: 'r', agentId: 'a', toolCallId: 't', prompt: 'Which?' };
    assert.ok(AskParams.safeParse({ ...base, options: [{ label: 'A', value: 'a' }], secret: true }).success);
    assert.ok(!AskParams.safeParse({ ...base, options: [{ label: 'A' }] }).success);
  });

  test('version compatibility is by MAJOR.MINOR', () => {
    assert.ok(isProtocolVersion('10.20.30'));
    assert.ok(!isProtocolVersion('1.2'));
    assert.ok(!isProtocolVersion('v1.2.3'));
    assert.ok(isCompatibleVersion('0.1.9', '0.1.0'));
    assert.ok(!isCompatibleVersion('0.2.0', '0.1.0'));
    assert.ok(!isCompatibleVersion('garbage', '0.1.0'));
  });

  test('every params and result schema of the method table is a named type', () => {
    for (const [name, spec] of Object.entries(methods as Record<string, MethodSpec>)) {
      assert.ok(protocolTypes.get(spec.params)?.id, `${name} params`);
      assert.equal(
        spec.kind === 'request',
        spec.result !== undefined,
        `${name}: requests and only requests have results`,
      );
      if (spec.result !== undefined) assert.ok(protocolTypes.get(spec.result)?.id, `${name} result`);
    }
  });

  test('error codes: unique, Santra codes outside the JSON-RPC reserved range', () => {
    const codes = errorCatalog.map((entry) => entry.code);
    assert.equal(new Set(codes).size, codes.length);
    const standard = new Set([-32700, -32600, -32601, -32602, -32603, -32002, -32800, -32803]);
    for (const { name, code } of errorCatalog) {
      if (standard.has(code)) continue;
      assert.ok(code <= -33000 && code >= -33099, `${name} (${code}) must be in -33000..-33099`);
    }
  });

  test('the JSON-RPC envelope is published: every message of the examples fits it, and broken ones do not', () => {
    const dir = new URL('../examples/', import.meta.url);
    let seen = 0;
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
      for (const line of readFileSync(new URL(file, dir), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const { message } = JSON.parse(line) as { message?: unknown };
        if (message === undefined) continue; // a note between the messages
        assert.ok(JsonRpcMessage.safeParse(message).success, `${file}: ${line.slice(0, 120)}`);
        seen++;
      }
    }
    assert.ok(seen > 100, `${seen} messages`);
    for (const broken of [
      { jsonrpc: '1.0', id: 1, method: 'initialize' },
      { jsonrpc: '2.0', id: null, method: 'initialize' },
      { jsonrpc: '2.0', id: 1.5, result: null },
      { jsonrpc: '2.0', id: 1, result: null, error: { code: -32603, message: 'both' } },
      { jsonrpc: '2.0', id: 1, error: { message: 'no code' } },
      { jsonrpc: '2.0', method: 'phase', params: [1, 2] },
      [{ jsonrpc: '2.0', method: 'initialized' }],
    ])
      assert.equal(JsonRpcMessage.safeParse(broken).success, false, JSON.stringify(broken));
  });

  test('the session record is published: every line of the real recordings reads with it, and a broken line does not', () => {
    const dir = new URL('../examples/recordings/', import.meta.url);
    let seen = 0;
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
      for (const line of readFileSync(new URL(file, dir), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const parsed = SessionRecord.safeParse(JSON.parse(line));
        assert.ok(
          parsed.success,
          `${file}: ${line.slice(0, 120)}: ${JSON.stringify(parsed.error?.issues[0])}`,
        );
        seen++;
      }
    }
    assert.ok(seen > 50, `${seen} records`);
    for (const broken of [
      { type: 'prompt', runId: 'r', at: 'now' },
      { type: 'message', runId: 'r', message: { role: 'user', content: 'not blocks' } },
      { type: 'run_end', runId: 'r', status: 'completed', usage: {}, costUsd: 0, at: 'now' },
    ])
      assert.equal(SessionRecord.safeParse(broken).success, false, JSON.stringify(broken));
  });
});
