/**
 * The parts of live sessions (§10.11) in process, with real sockets and files: the socket channel
 * (private, replacing a socket a killed server left, refusing a second host, passing over lines
 * that are not messages) and the subscriber's seam between the store and the live phases (a gap
 * waited for in the store, duplicates dropped, questions withdrawn when answered elsewhere).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Phase } from '#protocol';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import type { DownMessage, JoinedChannel, LiveBus, UpMessage } from '../src/sessions/live-bus.ts';
import { SocketLiveBus } from '../src/sessions/live-socket.ts';
import { LiveSubscriber } from '../src/sessions/live-subscriber.ts';
import type { SessionRecord } from '../src/sessions/records.ts';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => removeTempDir(dir))));

function logger() {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, log: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } };
}

/** Resolves once `check` holds, looking after each turn of the event loop; fails after `ms`. */
async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** `<a temp config dir>/live`, not made yet; the temp dir goes after the tests. */
function liveDir(): string {
  const config = tempDir('santra-live-');
  dirs.push(config);
  return join(config, 'live');
}

const SESSION = 'ses_live-parts-1';
const text = (seq: number): Phase => ({
  type: 'text',
  text: `t${seq}`,
  seq,
  runId: 'run_1',
  sessionId: SESSION,
  agentId: 'main',
});

describe('the socket channel of sessions in files', () => {
  test('private: the folder is made 0700 (even when it was not), the socket is 0600', async () => {
    const dir = liveDir();
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const { log } = logger();
    const bus = new SocketLiveBus(dir, log);
    const host = await bus.host(SESSION, () => {});
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(bus.pathOf(SESSION)).mode & 0o777, 0o600);
    await host.close();
    assert.equal(existsSync(bus.pathOf(SESSION)), false, 'the socket goes with its host');
  });

  test('a socket left by a killed server is replaced; a second host of a running session is refused', async () => {
    const dir = liveDir();
    mkdirSync(dir, { mode: 0o700 });
    const { lines, log } = logger();
    const bus = new SocketLiveBus(dir, log);
    const path = bus.pathOf(SESSION);
    // A server that listens and is killed: its socket file stays, and nobody answers on it.
    const child = spawn(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`,
    ]);
    await once(child.stdout, 'data');
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.ok(existsSync(path), 'the killed server left its socket');

    const received: UpMessage[] = [];
    const host = await bus.host(SESSION, (message) => received.push(message));
    const seen: DownMessage[] = [];
    const joined = await bus.join(SESSION, (message) => seen.push(message));
    await until(() => received.some((m) => m.kind === 'hello'), 'the hello of the subscriber');
    host.send({ kind: 'phase', phase: text(1) });
    await until(() => seen.length === 1, 'the phase');
    assert.deepEqual(seen, [{ kind: 'phase', phase: text(1) }]);

    const second = await bus.host(SESSION, () => {});
    second.send({ kind: 'phase', phase: text(2) });
    assert.match(lines.join('\n'), /no live channel \(another server is running it\)/);
    assert.ok(existsSync(path), "the first host's socket is left alone");
    await joined.close();
    await host.close();
  });

  test('a connection without the key gets nothing and is closed; after the key, bad lines are passed over', async () => {
    const dir = liveDir();
    const { lines, log } = logger();
    const bus = new SocketLiveBus(dir, log);
    const received: UpMessage[] = [];
    const host = await bus.host(SESSION, (message) => received.push(message));
    const key = join(dir, `${SESSION}.key`);
    assert.equal(statSync(key).mode & 0o777, 0o600, 'the key is private');

    // What a command that found the socket, but cannot read the key, could do.
    const stranger = createConnection(bus.pathOf(SESSION));
    await once(stranger, 'connect');
    let strangerGot = '';
    stranger.on('data', (chunk: Buffer) => (strangerGot += chunk.toString()));
    stranger.write('{"kind":"hello","key":"guessed"}\n');
    await once(stranger, 'close');
    host.send({ kind: 'phase', phase: text(1) });
    assert.equal(strangerGot, '');
    assert.equal(received.length, 0, 'nothing taken from it');
    assert.match(lines.join('\n'), /a connection to its live channel without its key was closed/);

    const raw = createConnection(bus.pathOf(SESSION));
    await once(raw, 'connect');
    raw.write(
      `${JSON.stringify({ kind: 'hello', key: readFileSync(key, 'utf8') })}\nnot json\n{"kind":"answer","id":"x"}\n{"kind":"hello"}\n`,
    );
    await until(() => received.length === 2, 'the valid messages');
    assert.deepEqual(
      received.map((m) => m.kind),
      ['hello', 'hello'],
    );
    assert.match(lines.join('\n'), /a subscriber sent a message that is not JSON; ignored/);
    assert.match(lines.join('\n'), /a subscriber sent a message that is not one of the protocol's/);
    raw.destroy();
    await host.close();
    assert.equal(existsSync(key), false, 'the key goes with its host');
  });

  test('a session id too long for a socket path gets a hashed name', () => {
    const { log } = logger();
    const bus = new SocketLiveBus(join('/tmp', 'x'.repeat(60), 'live'), log);
    const id = `ses_${'a'.repeat(60)}`;
    assert.match(bus.pathOf(id), /\/live\/[0-9a-f]{16}\.sock$/);
    assert.equal(bus.pathOf(SESSION), join('/tmp', 'x'.repeat(60), 'live', `${SESSION}.sock`));
  });
});

/** A bus whose host side the test plays: what it `deliver`s reaches the joined subscriber. */
function playedBus() {
  let receive: ((message: DownMessage) => void) | undefined;
  const sent: UpMessage[] = [];
  const bus: LiveBus = {
    host: () => Promise.reject(new Error('not used')),
    join: (_id, onMessage) => {
      receive = onMessage;
      const channel: JoinedChannel = {
        send: (message) => void sent.push(message),
        close: () => Promise.resolve(),
      };
      return Promise.resolve(channel);
    },
    close: () => Promise.resolve(),
  };
  return { bus, sent, deliver: (message: DownMessage) => receive?.(message) };
}

const header: SessionRecord = {
  type: 'session',
  format: 1,
  sessionId: SESSION,
  workspaceRoot: '/w',
  createdAt: '2026-11-27T00:00:00.000Z',
  santraVersion: '0.3.0',
};
const stored = (...seqs: number[]): SessionRecord[] => [
  header,
  ...seqs.map((seq): SessionRecord => ({ type: 'phase', phase: text(seq) })),
];

describe('the subscriber: store, then live', () => {
  test('after afterSeq, each seq once and in order; a gap is waited for in the store', async () => {
    const { bus, deliver } = playedBus();
    let records = stored(1, 2, 3);
    const { log } = logger();
    const got: number[] = [];
    const subscriber = await LiveSubscriber.start({
      sessionId: SESSION,
      afterSeq: 1,
      bus,
      storage: { read: () => Promise.resolve({ records, warnings: [] }) },
      log,
      phase: (phase) => got.push(phase.seq),
    });
    assert.deepEqual(got, [2, 3], 'the store first, after afterSeq');
    // Already sent from the store: dropped. Then 6 arrives before 4 and 5 are stored.
    deliver({ kind: 'phase', phase: text(3) });
    deliver({ kind: 'phase', phase: text(6) });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(got, [2, 3], 'the live phase waits for the ones before it');
    records = stored(1, 2, 3, 4, 5, 6);
    await until(() => got.length === 5, 'the gap filled');
    deliver({ kind: 'phase', phase: text(5) });
    deliver({ kind: 'phase', phase: text(7) });
    await until(() => got.length === 6, 'the next live phase');
    assert.deepEqual(got, [2, 3, 4, 5, 6, 7]);
    assert.deepEqual(await subscriber.stop(), { replayedPhases: 4, livePhases: 2, lastSeq: 7, answered: 0 });
  });

  test('a request is put to the client once; answered elsewhere, it is withdrawn; its own answer goes up', async () => {
    const { bus, sent, deliver } = playedBus();
    const { log } = logger();
    const signals: AbortSignal[] = [];
    const subscriber = await LiveSubscriber.start({
      sessionId: SESSION,
      afterSeq: 0,
      bus,
      storage: { read: () => Promise.resolve({ records: stored(), warnings: [] }) },
      log,
      phase: () => {},
      approve: (_params, signal) => {
        signals.push(signal);
        // The first is left waiting; the second is allowed.
        return signals.length === 1
          ? new Promise((_resolve, reject) =>
              signal.addEventListener('abort', () => reject(new Error('withdrawn'))),
            )
          : Promise.resolve({ decision: 'allow' });
      },
    });
    const request = (id: string): DownMessage => ({
      kind: 'approve',
      id,
      params: {
        kind: 'command',
        sessionId: SESSION,
        runId: 'run_1',
        agentId: 'main',
        toolCallId: `call_${id}`,
        toolName: 'run_command',
        command: 'npm test',
        cwd: '/w',
      },
    });
    deliver(request('a'));
    deliver(request('a')); // sent again for a subscriber that joined later
    await until(() => signals.length === 1, 'the first request');
    deliver({ kind: 'answered', id: 'a', by: 'someone else' });
    await until(() => signals[0]?.aborted === true, 'the withdrawal');
    deliver(request('b'));
    await until(() => sent.some((m) => m.kind === 'answer'), 'the answer');
    const answer = sent.find((m) => m.kind === 'answer');
    assert.equal(signals.length, 2, 'each request put once');
    assert.deepEqual(answer?.kind === 'answer' ? [answer.id, answer.result] : [], [
      'b',
      { decision: 'allow' },
    ]);
    // The host says whose answer decided: this one's.
    deliver({ kind: 'answered', id: 'b', by: answer?.kind === 'answer' ? answer.from : '' });
    assert.equal((await subscriber.stop()).answered, 1);
  });

  test('an unknown session is refused with UnknownSession, and the channel is left', async () => {
    const { bus } = playedBus();
    const { log } = logger();
    await assert.rejects(
      LiveSubscriber.start({
        sessionId: SESSION,
        afterSeq: 0,
        bus,
        storage: { read: () => Promise.resolve(undefined) },
        log,
        phase: () => {},
      }),
      (error: Error & { errorName?: string }) =>
        error.errorName === 'UnknownSession' && /Unknown session ses_live-parts-1/.test(error.message),
    );
  });
});
