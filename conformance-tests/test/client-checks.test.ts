/**
 * The pieces of the client mode on hand-made input: the frame reader's faults, the checks on
 * hand-made transcripts, the requirement ids against the spec, and the command line's usage errors.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { type Exchange, generalChecks } from '../src/client/checks.ts';
import { FrameReader, frame } from '../src/client/frames.ts';
import { CHECKED, clientRequirements } from '../src/client/requirements.ts';
import type { WireEntry } from '../src/client/wire.ts';
import { loadRequirements } from '../src/spec/requirements.ts';

const CLI = new URL('../src/client/cli.ts', import.meta.url).href;
const raw = (text: string) => Buffer.from(text, 'latin1');

describe('FrameReader', () => {
  test('reads frames split anywhere, counting the body in bytes', () => {
    const reader = new FrameReader();
    const bytes = Buffer.concat([frame({ text: 'héllo' }), frame({ n: 2 })]);
    const frames = [...bytes].flatMap((byte) => reader.push(Buffer.from([byte])));
    assert.deepEqual(
      frames.map((f) => f.text),
      ['{"text":"héllo"}', '{"n":2}'],
    );
    assert.deepEqual(reader.faults, []);
  });

  test('stops at a header it cannot trust, saying why', () => {
    for (const [input, why] of [
      ['Content-Type: x\r\n\r\n{}', /without Content-Length/],
      ['Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}', /conflicting Content-Length/],
      ['Content-Length: 2abc\r\n\r\n{}', /not a decimal integer/],
      ['garbage\r\n\r\n{}', /not "Name: value"/],
    ] as const) {
      const reader = new FrameReader();
      assert.deepEqual(reader.push(raw(input)), []);
      assert.match(reader.faults.join(), why);
    }
  });

  test('a body that is not UTF-8, and a frame cut short, are faults', () => {
    const reader = new FrameReader();
    const [bad] = reader.push(Buffer.concat([raw('Content-Length: 1\r\n\r\n'), Buffer.from([0xff])]));
    assert.match(bad?.faults.join() ?? '', /not valid UTF-8/);
    reader.push(raw('Content-Length: 10\r\n\r\n{"a"'));
    reader.end();
    assert.match(reader.faults.join(), /ended inside a frame/);
  });
});

/** A transcript from messages: `>` the client's, `<` the server's. */
function exchange(...messages: [string, unknown][]): Exchange {
  const transcript: WireEntry[] = messages.map(([from, message], at) => ({
    at,
    from: from === '>' ? 'client' : 'server',
    message: { jsonrpc: '2.0', ...(message as object) },
    ...(from === '>' ? { bytes: 10, faults: [] } : {}),
  }));
  return { transcript, ending: 'exit', maxMessageBytes: 1000 };
}

const INIT = {
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '0.2.0',
    clientInfo: { name: 't', version: '1' },
    workspaceRoot: '/w',
    capabilities: {},
  },
};
const finding = (e: Exchange, id: string) => generalChecks(e).find((f) => f.requirement === id);

describe('general checks', () => {
  test('a prompt before the initialize result fails SANTRA-CLIENT-004', () => {
    const e = exchange(
      ['>', INIT],
      ['>', { id: 2, method: 'prompt', params: { text: 'hi' } }],
      ['<', { id: 1, result: {} }],
    );
    assert.equal(finding(e, 'SANTRA-CLIENT-004')?.status, 'fail');
    assert.match(
      finding(e, 'SANTRA-CLIENT-004')?.message ?? '',
      /prompt was sent before the initialize result/,
    );
    assert.equal(finding(e, 'SANTRA-LIFE-003')?.status, 'pass');
  });

  test('params that fail the schema fail SANTRA-CLIENT-003, naming the field', () => {
    const e = exchange(['>', { ...INIT, params: { ...INIT.params, workspaceRoot: 'relative' } }]);
    assert.match(
      finding(e, 'SANTRA-CLIENT-003')?.message ?? '',
      /initialize params\.workspaceRoot: must match pattern/,
    );
  });

  test('a reused pending id fails SANTRA-MSG-008; "1" and 1 are the same id', () => {
    const e = exchange(
      ['>', INIT],
      ['<', { id: 1, result: {} }],
      ['>', { id: 2, method: 'model/list' }],
      ['>', { id: '2', method: 'agents/list' }],
    );
    assert.equal(finding(e, 'SANTRA-MSG-008')?.status, 'fail');
  });

  test('an approve answered twice fails SANTRA-CLIENT-006; an oversized body fails SANTRA-FRAME-008', () => {
    const e = exchange(
      ['<', { id: 0, method: 'approve', params: {} }],
      ['>', { id: 0, result: { decision: 'allow' } }],
      ['>', { id: 0, result: { decision: 'reject' } }],
    );
    assert.match(finding(e, 'SANTRA-CLIENT-006')?.message ?? '', /approve 0 was answered 2 times/);
    (e.transcript[1] as WireEntry).bytes = 2000;
    assert.equal(finding(e, 'SANTRA-FRAME-008')?.status, 'fail');
  });

  test('exit before the shutdown result is advisory SANTRA-CLIENT-013; nothing after shutdown passes SANTRA-CLIENT-012', () => {
    const e = exchange(
      ['>', { id: 5, method: 'shutdown' }],
      ['>', { method: 'exit' }],
      ['<', { id: 5, result: null }],
    );
    assert.equal(finding(e, 'SANTRA-CLIENT-013')?.status, 'fail');
    assert.equal(finding(e, 'SANTRA-CLIENT-012')?.status, 'pass');
    assert.equal(finding(e, 'SANTRA-CLIENT-011')?.status, 'pass');
  });
});

describe('requirements', () => {
  test('every id the client mode checks is in the spec, and every SANTRA-CLIENT id of the spec is checked', () => {
    assert.equal(clientRequirements().length, CHECKED.length);
    const inSpec = loadRequirements()
      .filter((r) => r.area === 'CLIENT')
      .map((r) => r.id);
    assert.deepEqual(
      inSpec.filter((id) => !(CHECKED as readonly string[]).includes(id)),
      [],
    );
  });

  test('a checked id the spec lacks is refused by name', () => {
    const spec = loadRequirements().filter((r) => r.id !== 'SANTRA-CLIENT-009');
    assert.throws(
      () => clientRequirements(spec),
      /SANTRA-CLIENT-009, which protocol-spec\/README\.md does not define/,
    );
  });
});

describe('santra-conformance client: usage', () => {
  /** runClientMode in a process of its own, as bin.ts runs it. */
  const run = (args: string[]) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { runClientMode } from ${JSON.stringify(CLI)}; process.exitCode = await runClientMode(${JSON.stringify(args)});`,
      ],
      { encoding: 'utf8' },
    );

  test('bad usage exits 2 with a message naming what was wrong', () => {
    for (const [args, message] of [
      [[], /no client command: give it after --/],
      [['--cancel', 'later', '--', 'x'], /--cancel must be sigint or client, not later/],
      [['--scenario', 'nope', '--', 'x'], /unknown scenario nope; the scenarios are greeting, /],
      [['--deadline-ms', '1.5', '--', 'x'], /--deadline-ms must be a positive whole number/],
    ] as const) {
      const { status, stderr } = run([...args]);
      assert.equal(status, 2, stderr);
      assert.match(stderr, message);
    }
  });

  test('--help lists the scenarios', () => {
    const { status, stdout } = run(['--help']);
    assert.equal(status, 0);
    assert.match(stdout, /--scenario <name> .*greeting, approve, ask, cancel, forward-compat/);
  });
});
