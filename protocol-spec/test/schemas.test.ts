import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ApproveParams,
  ApproveResult,
  AskParams,
  errorCatalog,
  InitializeParams,
  isCompatibleVersion,
  isProtocolVersion,
  type MethodSpec,
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
});
