/** §1 framing and §2 bodies that are not messages. */
import { JsonRpcErrorCodes, SantraErrorCodes } from '#protocol';
import { ScenarioStop } from '../run/context.ts';
import type { Scenario } from '../run/runner.ts';
import { encodeFrame } from '../wire/framing.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';
import { codeOf, describeResponse, responseTo, sleep } from './helpers.ts';

const NEXT = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'santra-conformance/no-such-method' });

/** A header the server cannot trust, then a good frame it must not read. */
function fatalHeader(name: string, header: string, expectedCode: number, id: string): Scenario {
  return {
    name: `framing: ${name}`,
    covers: [id, 'SANTRA-FRAME-005', 'SANTRA-FRAME-006'],
    async run(ctx) {
      const server = await ctx.open();
      const before = server.stderr.length;
      server.sendRaw(
        Buffer.concat([Buffer.from(header, 'latin1'), Buffer.from('{"jsonrpc":"2.0"}'), encodeFrame(NEXT)]),
      );
      const exit = await server.waitForExit(10_000);
      const answer = server.received.find((m) => Object.hasOwn(m, 'error') && m.id === null);
      ctx.check(
        id,
        answer !== undefined && codeOf(answer) === expectedCode && exit?.code === 3,
        `${name}: ${answer === undefined ? 'no error with id null' : describeResponse(answer)}; ${exit === undefined ? 'still running after 10 s' : `exit code ${exit.code}`}`,
      );
      const later = server.received.filter((m) => m.id === 99);
      ctx.check(
        'SANTRA-FRAME-005',
        later.length === 0,
        `the frame after the bad header got ${later.length} answer(s)`,
      );
      ctx.check(
        'SANTRA-FRAME-006',
        server.stderr.length > before,
        server.stderr.length > before
          ? `stderr: ${JSON.stringify(server.stderr.slice(before, before + 160))}`
          : 'nothing on stderr',
      );
    },
  };
}

const FATAL: Scenario[] = [
  fatalHeader(
    'a header section without Content-Length',
    'Content-Type: application/json\r\n\r\n',
    JsonRpcErrorCodes.ParseError,
    'SANTRA-FRAME-004',
  ),
  fatalHeader(
    'Content-Length 2abc',
    'Content-Length: 2abc\r\n\r\n',
    JsonRpcErrorCodes.ParseError,
    'SANTRA-FRAME-004',
  ),
  fatalHeader(
    'Content-Length -1',
    'Content-Length: -1\r\n\r\n',
    JsonRpcErrorCodes.ParseError,
    'SANTRA-FRAME-004',
  ),
  fatalHeader(
    'conflicting Content-Length headers',
    'Content-Length: 17\r\nContent-Length: 18\r\n\r\n',
    JsonRpcErrorCodes.ParseError,
    'SANTRA-FRAME-004',
  ),
  fatalHeader(
    'a header line that is not Name: value',
    'Content-Length: 17\r\nthis is not a header\r\n\r\n',
    JsonRpcErrorCodes.ParseError,
    'SANTRA-FRAME-004',
  ),
  fatalHeader(
    'a header section over 8 KiB',
    `X-Padding: ${'x'.repeat(9000)}\r\nContent-Length: 17\r\n\r\n`,
    JsonRpcErrorCodes.ParseError,
    'SANTRA-FRAME-004',
  ),
  fatalHeader(
    'Content-Length over 1 GiB',
    'Content-Length: 2000000000\r\n\r\n',
    SantraErrorCodes.MessageTooLarge,
    'SANTRA-FRAME-007',
  ),
];

async function answerTo(server: ServerUnderTest, body: Buffer | string, headers = ''): Promise<Json[]> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const count = server.received.length;
  server.sendRaw(
    Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n${headers}\r\n`, 'latin1'), bytes]),
  );
  // A request after it tells when the server has dealt with it (messages are handled in order).
  const probe = server.nextId();
  server.send({ jsonrpc: '2.0', id: probe, method: 'santra-conformance/no-such-method' });
  await responseTo(server, probe, 10_000, 'the answer to a request sent after it');
  return server.received.slice(count).filter((m) => m.id !== probe);
}

const badBodies: Scenario = {
  name: 'messages: bodies that are not messages, batches, headers to ignore',
  covers: [
    'SANTRA-FRAME-003',
    'SANTRA-FRAME-014',
    'SANTRA-MSG-002',
    'SANTRA-MSG-003',
    'SANTRA-MSG-004',
    'SANTRA-MSG-005',
  ],
  async run(ctx) {
    const server = await ctx.open();
    const headers = await answerTo(
      server,
      JSON.stringify({ jsonrpc: '2.0', id: 'h', method: 'santra-conformance/no-such-method' }),
      'Content-Type: application/vscode-jsonrpc; charset=utf8\r\nX-Santra-Conformance: yes\r\n',
    );
    ctx.check(
      'SANTRA-FRAME-003',
      headers.length === 1 && codeOf(headers[0] as Json) === JsonRpcErrorCodes.MethodNotFound,
      `charset utf8 and an unknown header: ${JSON.stringify(headers)}`,
    );
    const charset = await answerTo(
      server,
      '{"jsonrpc":"2.0","id":"c","method":"model/list"}',
      'Content-Type: application/json; charset=latin1\r\n',
    );
    ctx.check(
      'SANTRA-FRAME-014',
      charset.length === 1 &&
        codeOf(charset[0] as Json) === JsonRpcErrorCodes.ParseError &&
        charset[0]?.id === null,
      `charset latin1: ${JSON.stringify(charset)}`,
    );
    for (const [what, body] of [
      ['not JSON', '{"jsonrpc": "2.0", "id": 3, "method": '],
      ['not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ] as const) {
      const answers = await answerTo(server, body);
      ctx.check(
        'SANTRA-MSG-003',
        answers.length === 1 &&
          codeOf(answers[0] as Json) === JsonRpcErrorCodes.ParseError &&
          answers[0]?.id === null,
        `a body ${what}: ${JSON.stringify(answers)}`,
      );
    }
    const batch = await answerTo(
      server,
      JSON.stringify([
        { jsonrpc: '2.0', id: 'b1', method: 'santra-conformance/no-such-method' },
        { jsonrpc: '2.0', id: 'b2', method: 'shutdown' },
      ]),
    );
    ctx.check(
      'SANTRA-MSG-002',
      batch.length === 1 &&
        codeOf(batch[0] as Json) === JsonRpcErrorCodes.InvalidRequest &&
        batch[0]?.id === null,
      `a batch: ${JSON.stringify(batch)}`,
    );
    const invalid: Array<[string, unknown, unknown]> = [
      ['a number', 42, null],
      ['jsonrpc 1.0', { jsonrpc: '1.0', id: 'v', method: 'model/list' }, 'v'],
      ['no jsonrpc', { id: 'n', method: 'model/list' }, 'n'],
      ['an empty method', { jsonrpc: '2.0', id: 'e', method: '' }, 'e'],
      ['id null', { jsonrpc: '2.0', id: null, method: 'model/list' }, null],
      ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'model/list' }, null],
      ['params a string', { jsonrpc: '2.0', id: 'p', method: 'model/list', params: 'x' }, 'p'],
    ];
    for (const [what, body, id] of invalid) {
      const answers = await answerTo(server, JSON.stringify(body));
      ctx.check(
        'SANTRA-MSG-004',
        answers.length === 1 &&
          codeOf(answers[0] as Json) === JsonRpcErrorCodes.InvalidRequest &&
          answers[0]?.id === id,
        `${what}: ${JSON.stringify(answers)} (expected InvalidRequest with id ${JSON.stringify(id)})`,
      );
    }
    const notification = await answerTo(
      server,
      JSON.stringify({ jsonrpc: '2.0', method: 'initialized', params: 'not structured' }),
    );
    ctx.check(
      'SANTRA-MSG-005',
      notification.length === 0,
      `an invalid notification got ${JSON.stringify(notification)}`,
    );
  },
};

const oversized: Scenario = {
  name: 'framing: a body over maxMessageBytes is skipped and answered at once',
  covers: ['SANTRA-FRAME-009', 'SANTRA-FRAME-010', 'SANTRA-FRAME-011'],
  async run(ctx) {
    const server = await ctx.start();
    const init = await server.request('initialize', ctx.initializeParams());
    const limit = (
      (init.result as Json | undefined)?.capabilities as { limits?: { maxMessageBytes?: number } } | undefined
    )?.limits?.maxMessageBytes;
    if (limit === undefined)
      throw new ScenarioStop('initialize advertised no capabilities.limits.maxMessageBytes');
    const size = limit + 1;
    const head = '{"jsonrpc":"2.0","id":5,"method":"prompt","params":{"text":"';
    const body = Buffer.alloc(size, 0x61);
    body.write(head, 0, 'utf8');
    body.write('"}}', size - 3, 'utf8');
    // The header and the first 600 bytes: the answer must not wait for the rest.
    server.sendRaw(
      Buffer.concat([Buffer.from(`Content-Length: ${size}\r\n\r\n`, 'latin1'), body.subarray(0, 600)]),
    );
    const early = await server
      .waitFor(
        (m) => codeOf(m) === SantraErrorCodes.MessageTooLarge,
        10_000,
        'a MessageTooLarge answer after the first 512 bytes',
      )
      .catch(() => undefined);
    ctx.check(
      'SANTRA-FRAME-010',
      early !== undefined,
      early === undefined
        ? 'no answer before the rest of the body was sent'
        : 'answered after the first 600 bytes',
    );
    server.sendRaw(body.subarray(600));
    const answer =
      early ??
      (await server.waitFor(
        (m) => codeOf(m) === SantraErrorCodes.MessageTooLarge,
        20_000,
        'a MessageTooLarge answer',
      ));
    const data = ((answer.error as Json).data ?? {}) as Json;
    ctx.check(
      'SANTRA-FRAME-011',
      answer.id === 5,
      `the id shown before params: answered with id ${JSON.stringify(answer.id)}`,
    );
    // The stream is still in sync: the next frame is read as usual.
    const next = await server.request('santra-conformance/no-such-method', {});
    ctx.check(
      'SANTRA-FRAME-009',
      codeOf(next) === JsonRpcErrorCodes.MethodNotFound && data.limit === limit && data.size === size,
      `data ${JSON.stringify(data)}; the next request: ${describeResponse(next)}`,
    );
    const late = Buffer.alloc(size, 0x20);
    late.write('{"params":{"text":"', 0, 'utf8');
    const tail = '"},"jsonrpc":"2.0","id":6,"method":"prompt"}';
    late.write(tail, size - tail.length, 'utf8');
    server.sendRaw(Buffer.concat([Buffer.from(`Content-Length: ${size}\r\n\r\n`, 'latin1'), late]));
    const second = await server.waitFor(
      (m) => codeOf(m) === SantraErrorCodes.MessageTooLarge && m !== answer,
      20_000,
      'a second MessageTooLarge answer',
    );
    ctx.check(
      'SANTRA-FRAME-011',
      second.id === null,
      `params before the id: answered with id ${JSON.stringify(second.id)}`,
    );
    await sleep(0);
  },
};

export const FRAMING: Scenario[] = [...FATAL, badBodies, oversized];
