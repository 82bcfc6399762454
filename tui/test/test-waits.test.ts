/**
 * The TUI's tests wait for what they wait for (a frame, an answer, output, a process's end: see
 * helpers/until.ts), never for a stretch of time: a fixed sleep passes on a fast machine and fails
 * on a slow one, or lets a test pass before what it checks has happened. This scans tui/test for
 * the ways a sleep is written. A deadline (a timer that fails a wait) is not a sleep, nor is a
 * turn of the event loop. The allowed sleeps are the fake server's: it plays servers that take
 * their time, which is what the tests of them check; each has its reason.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

/** How a sleep is written: each pattern is matched against one line of code. */
const SLEEPS: readonly { what: string; pattern: RegExp }[] = [
  {
    what: 'a promise a timer resolves',
    pattern: /setTimeout\(\s*(?:\(\s*\)\s*=>\s*\{?\s*)?(?:resolve|res|r|done|wake|next)\b/,
  },
  { what: 'the timers of node:timers/promises', pattern: /['"](?:node:)?timers\/promises['"]/ },
  { what: 'a sleep helper', pattern: /\b(?:sleep|delay|pause|wait)\s*\(\s*[\d_]+\s*\)|\bsleep\s*\(/ },
  { what: 'a blocking wait', pattern: /\bAtomics\.wait\(/ },
];

/** The sleeps allowed, by file (under tui/test) and line (trimmed): why each is not a test's wait. */
const ALLOWED: readonly { file: string; line: string; why: string }[] = [
  {
    file: 'fixtures/fake-server.ts',
    line: 'const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));',
    why: 'the helper of the fake server sleeps below',
  },
  {
    file: 'fixtures/fake-server.ts',
    line: 'setTimeout(() => resolve(false), ms);',
    why: 'the deadline of a wait for the cancel: the slow and stubborn servers give up after a minute',
  },
  {
    file: 'fixtures/fake-server.ts',
    line: 'await sleep(200);',
    why:
      'text-then-approve: a real server logs between two deltas; nothing santra sends back says it has ' +
      'shown the first, so the log line comes later in time, as from a server that is working',
  },
  {
    file: 'fixtures/fake-server.ts',
    line: 'await sleep(100);',
    why: 'die: a server that crashes a moment after it streamed, not in the same write',
  },
  {
    file: 'fixtures/fake-server.ts',
    line: 'await sleep(60_000);',
    why: 'stubborn: a server that never answers; santra giving up on it after its grace period is the test',
  },
  {
    file: 'fixtures/fake-server.ts',
    line: "if (scenario === 'stubborn') await sleep(60_000);",
    why: 'stubborn: a server that never answers shutdown; santra killing it is the test',
  },
];

const ROOT = new URL('./', import.meta.url);
const THIS_FILE = 'test-waits.test.ts';

/** The sleeps in `text`, as `line: code`; comments are passed over (a sleep named in prose is fine). */
function sleepsIn(text: string): { number: number; line: string; what: string }[] {
  const found: { number: number; line: string; what: string }[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (/^(\/\/|\*|\/\*)/.test(line)) return;
    const code = line.replace(/\s\/\/.*$/, '');
    for (const { what, pattern } of SLEEPS)
      if (pattern.test(code)) {
        found.push({ number: index + 1, line, what });
        break;
      }
  });
  return found;
}

describe('no fixed sleeps in the TUI tests', () => {
  test('every sleep in tui/test is one the allowlist names, with its reason', () => {
    const files = readdirSync(ROOT, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && file !== THIS_FILE,
    );
    assert.ok(files.length > 20, files.join(' '));
    const refused: string[] = [];
    const used = new Set<(typeof ALLOWED)[number]>();
    for (const file of files) {
      for (const sleep of sleepsIn(readFileSync(new URL(file, ROOT), 'utf8'))) {
        const allowed = ALLOWED.find((entry) => entry.file === file && entry.line === sleep.line);
        if (allowed === undefined)
          refused.push(`tui/test/${file}:${sleep.number}: ${sleep.what}: ${sleep.line}`);
        else used.add(allowed);
      }
    }
    assert.deepEqual(
      refused,
      [],
      'wait for the thing itself (helpers/until.ts: a frame, an answer; an event), not for time',
    );
    // An entry whose sleep is gone is removed, so the list says what is really allowed.
    assert.deepEqual(
      ALLOWED.filter((entry) => !used.has(entry)).map((entry) => `${entry.file}: ${entry.line}`),
      [],
    );
  });

  test('the scan finds each way of writing a sleep, and no deadline or turn of the event loop', () => {
    const sleeps = [
      'const settle = () => new Promise((resolve) => setTimeout(resolve, 20));',
      'await new Promise((r) => setTimeout(r, 100));',
      'await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 200); });',
      'setTimeout(() => resolve(), 50);',
      "import { setTimeout as wait } from 'node:timers/promises';",
      'await sleep(60_000);',
      'await delay(250);',
      'Atomics.wait(cell, 0, 0, 100);',
    ];
    assert.deepEqual(
      sleeps.filter((line) => sleepsIn(line).length === 0),
      [],
      'a sleep the scan misses',
    );
    const waits = [
      'const turn = () => new Promise<void>((resolve) => setImmediate(resolve));',
      'const deadline = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);',
      "const deadline = setTimeout(() => reject(new Error('too late')), timeoutMs);",
      "context.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });",
      '// no sleep(20) here: a comment',
      ' * waits without sleeping',
    ];
    assert.deepEqual(
      waits.filter((line) => sleepsIn(line).length > 0),
      [],
      'a wait the scan takes for a sleep',
    );
  });
});
