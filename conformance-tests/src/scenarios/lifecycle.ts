/** §3 lifecycle and §4 versioning, §2 ids and unknown methods along the way. */
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import { PROTOCOL_VERSION } from '../../../protocol-spec/src/version.ts';
import type { Scenario } from '../run/runner.ts';
import { CORE_METHODS } from '../spec/schema.ts';
import { encodeFrame } from '../wire/framing.ts';
import { codeOf, describeResponse, responseTo, sleep, str } from './helpers.ts';

const handshake: Scenario = {
  name: 'lifecycle: handshake, ids 0 and "", unknown methods, shutdown and exit',
  covers: [
    'SANTRA-LIFE-001',
    'SANTRA-LIFE-002',
    'SANTRA-LIFE-004',
    'SANTRA-LIFE-005',
    'SANTRA-LIFE-010',
    'SANTRA-LIFE-011',
    'SANTRA-LIFE-012',
    'SANTRA-MSG-006',
    'SANTRA-MSG-011',
    'SANTRA-MSG-013',
    'SANTRA-MSG-014',
    'SANTRA-MSG-015',
    'SANTRA-MSG-019',
    'SANTRA-MSG-020',
    'SANTRA-VER-001',
  ],
  async run(ctx) {
    const server = await ctx.start();
    const early = await server.request('model/list', {});
    ctx.check(
      'SANTRA-LIFE-001',
      codeOf(early) === JsonRpcErrorCodes.ServerNotInitialized,
      `model/list before initialize: ${describeResponse(early)}`,
    );
    // A notification before initialize is dropped: nothing answers it, and initialize still works.
    server.notify('initialized', {});
    server.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { ...ctx.initializeParams(), futureField: { x: 1 } },
    });
    const init = await responseTo(server, 0, 10_000, 'the response to initialize (id 0)');
    const result = (init.result ?? {}) as { protocolVersion?: string; capabilities?: { methods?: string[] } };
    ctx.check('SANTRA-MSG-006', init.result !== undefined, `initialize with id 0: ${describeResponse(init)}`);
    ctx.check(
      'SANTRA-MSG-015',
      init.result !== undefined,
      `initialize with an unknown field: ${describeResponse(init)}`,
    );
    ctx.check(
      'SANTRA-LIFE-002',
      server.received.length === 2,
      `${server.received.length - 2} answer(s) to a notification sent before initialize`,
    );
    ctx.check(
      'SANTRA-VER-001',
      result.protocolVersion === PROTOCOL_VERSION,
      `asked for ${PROTOCOL_VERSION}, got ${String(result.protocolVersion)}`,
    );
    const methods = result.capabilities?.methods ?? [];
    for (const name of methods) ctx.declared.add(name);
    const missing = CORE_METHODS.filter((m) => !methods.includes(m));
    ctx.check(
      'SANTRA-LIFE-005',
      missing.length === 0,
      missing.length === 0
        ? 'the core methods are declared'
        : `capabilities.methods lacks ${missing.join(', ')}`,
    );
    server.notify('initialized', {});
    const again = await server.request('initialize', ctx.initializeParams());
    ctx.check(
      'SANTRA-LIFE-004',
      codeOf(again) === JsonRpcErrorCodes.InvalidRequest,
      `a second initialize: ${describeResponse(again)}`,
    );
    const bad = await server.request('prompt', { text: 5, mode: 'sometimes' });
    const issues = (
      (bad.error as { data?: { issues?: { path?: unknown }[] } } | undefined)?.data?.issues ?? []
    ).map((i) => JSON.stringify(i.path));
    const message = str((bad.error as { message?: unknown } | undefined)?.message);
    ctx.check(
      'SANTRA-MSG-014',
      codeOf(bad) === JsonRpcErrorCodes.InvalidParams &&
        message.includes('text') &&
        message.includes('mode') &&
        issues.length === 2,
      `prompt with text 5 and mode "sometimes": ${describeResponse(bad)}`,
    );
    const none = await server.request('prompt');
    ctx.check(
      'SANTRA-MSG-014',
      codeOf(none) === JsonRpcErrorCodes.InvalidParams,
      `prompt without params: ${describeResponse(none)}`,
    );
    server.notify('santra-conformance/unknown-notification', {});
    const unknown = await server.request('santra-conformance/no-such-method', {});
    ctx.check(
      'SANTRA-MSG-019',
      codeOf(unknown) === JsonRpcErrorCodes.MethodNotFound,
      `an unknown method: ${describeResponse(unknown)}`,
    );
    server.send({ jsonrpc: '2.0', id: '', method: 'santra-conformance/no-such-method' });
    const empty = await responseTo(server, '', 10_000, 'the response to request ""');
    ctx.check(
      'SANTRA-MSG-006',
      codeOf(empty) === JsonRpcErrorCodes.MethodNotFound,
      `a request with id "": ${describeResponse(empty)}`,
    );
    const stray = server.received.filter((m) => m.id === undefined && m.method === undefined);
    ctx.check(
      'SANTRA-MSG-020',
      stray.length === 0,
      stray.length === 0
        ? 'an unknown notification got no answer'
        : `an unknown notification: ${JSON.stringify(stray[0]).slice(0, 200)}`,
    );
    // One id twice, the first request answered before the second is sent.
    for (const round of [1, 2]) {
      const answer = server.next(
        (m) => m.id === 'reused' && !Object.hasOwn(m, 'method'),
        10_000,
        `answer ${round} to id "reused"`,
      );
      server.send({ jsonrpc: '2.0', id: 'reused', method: 'santra-conformance/no-such-method' });
      const response = await answer;
      if (round === 2)
        ctx.check(
          'SANTRA-MSG-011',
          codeOf(response) === JsonRpcErrorCodes.MethodNotFound,
          `an id reused after its answer: ${describeResponse(response)}`,
        );
    }
    const nullParams = await (async () => {
      const id = server.nextId();
      server.send({ jsonrpc: '2.0', id, method: 'shutdown', params: null });
      return responseTo(server, id, 20_000, 'the response to shutdown (params null)');
    })();
    ctx.check(
      'SANTRA-MSG-013',
      Object.hasOwn(nullParams, 'result'),
      `shutdown with params null: ${describeResponse(nullParams)}`,
    );
    ctx.check(
      'SANTRA-LIFE-010',
      nullParams.result === null,
      `shutdown answered ${describeResponse(nullParams)}`,
    );
    const after = await server.request('model/list', {});
    ctx.check(
      'SANTRA-LIFE-011',
      codeOf(after) === JsonRpcErrorCodes.InvalidRequest,
      `model/list after shutdown: ${describeResponse(after)}`,
    );
    server.notify('exit');
    const exit = await server.waitForExit(10_000);
    ctx.check(
      'SANTRA-LIFE-012',
      exit?.code === 0,
      `exit after shutdown: ${exit === undefined ? 'still running after 10 s' : `code ${exit.code}`}`,
    );
  },
};

const paramsOptional: Scenario = {
  name: 'messages: absent params where every field is optional',
  covers: ['SANTRA-MSG-013'],
  async run(ctx) {
    const server = await ctx.open();
    for (const method of ['model/list', 'agents/list', 'session/list'].filter((m) => ctx.declared.has(m))) {
      const response = await server.request(method);
      ctx.check(
        'SANTRA-MSG-013',
        Object.hasOwn(response, 'result'),
        `${method} without params: ${describeResponse(response)}`,
      );
    }
  },
};

const exitWithout: Scenario = {
  name: 'lifecycle: exit without shutdown',
  covers: ['SANTRA-LIFE-012'],
  async run(ctx) {
    const server = await ctx.open();
    server.notify('exit');
    const exit = await server.waitForExit(10_000);
    ctx.check(
      'SANTRA-LIFE-012',
      exit?.code === 1,
      `exit without shutdown: ${exit === undefined ? 'still running after 10 s' : `code ${exit.code}`}`,
    );
  },
};

const endOfInput: Scenario = {
  name: 'lifecycle: end of input after initialize and a partial frame',
  covers: ['SANTRA-LIFE-013', 'SANTRA-LIFE-014', 'SANTRA-LIFE-015'],
  async run(ctx) {
    const server = await ctx.start();
    server.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: ctx.initializeParams() });
    server.sendRaw(
      encodeFrame(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'model/list' })).subarray(0, 30),
    );
    server.closeInput();
    const exit = await server.waitForExit(10_000);
    const init = server.received.find((m) => m.id === 1);
    ctx.check(
      'SANTRA-LIFE-013',
      init?.result !== undefined,
      `initialize sent just before the end of input: ${init === undefined ? 'no answer' : describeResponse(init)}`,
    );
    ctx.check(
      'SANTRA-LIFE-014',
      exit?.code === 1,
      `end of input without shutdown: ${exit === undefined ? 'still running after 10 s' : `code ${exit.code}`}`,
    );
    const partial = server.received.filter((m) => m.id !== 1);
    ctx.check('SANTRA-LIFE-015', partial.length === 0, `the partial frame got ${partial.length} answer(s)`);
  },
};

const endAfterShutdown: Scenario = {
  name: 'lifecycle: end of input after shutdown',
  covers: ['SANTRA-LIFE-014'],
  async run(ctx) {
    const server = await ctx.open();
    await server.request('shutdown');
    server.closeInput();
    const exit = await server.waitForExit(10_000);
    ctx.check(
      'SANTRA-LIFE-014',
      exit?.code === 0,
      `end of input after shutdown: ${exit === undefined ? 'still running after 10 s' : `code ${exit.code}`}`,
    );
  },
};

const versions: Scenario = {
  name: 'versioning: an unsupported version, a patch version, a failed initialize',
  covers: ['SANTRA-VER-001', 'SANTRA-VER-002', 'SANTRA-LIFE-006', 'SANTRA-LIFE-007'],
  async run(ctx) {
    const server = await ctx.start();
    const wrong = await server.request('initialize', { ...ctx.initializeParams(), protocolVersion: '9.0.0' });
    const data =
      (wrong.error as { data?: { supported?: unknown; requested?: unknown } } | undefined)?.data ?? {};
    ctx.check(
      'SANTRA-VER-002',
      codeOf(wrong) === SantraErrorCodes.UnsupportedProtocolVersion &&
        Array.isArray(data.supported) &&
        data.requested === '9.0.0',
      `initialize asking for 9.0.0: ${describeResponse(wrong)}`,
    );
    const missing = await server.request('initialize', {
      ...ctx.initializeParams(),
      workspaceRoot: `${ctx.workspace}/no-such-dir`,
    });
    ctx.check(
      'SANTRA-LIFE-007',
      codeOf(missing) !== undefined,
      `a workspaceRoot that does not exist: ${describeResponse(missing)}`,
    );
    const still = await server.request('model/list', {});
    ctx.check(
      'SANTRA-LIFE-006',
      codeOf(still) === JsonRpcErrorCodes.ServerNotInitialized,
      `after failed initializes, model/list: ${describeResponse(still)}`,
    );
    const [major, minor] = PROTOCOL_VERSION.split('.');
    const patch = `${major}.${minor}.99`;
    const ok = await server.request('initialize', { ...ctx.initializeParams(), protocolVersion: patch });
    const version = (ok.result as { protocolVersion?: string } | undefined)?.protocolVersion;
    ctx.check(
      'SANTRA-LIFE-006',
      version !== undefined,
      `initialize after failed ones: ${describeResponse(ok)}`,
    );
    ctx.check(
      'SANTRA-VER-001',
      version?.startsWith(`${major}.${minor}.`) === true,
      `asked for ${patch}, got ${String(version)}`,
    );
    await sleep(0);
  },
};

export const LIFECYCLE: Scenario[] = [
  handshake,
  paramsOptional,
  exitWithout,
  endOfInput,
  endAfterShutdown,
  versions,
];
