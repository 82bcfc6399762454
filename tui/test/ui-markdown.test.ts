/**
 * Answer text on screen: Markdown rendered once it is finished (markdown.ts, entry-view.ts), the
 * unfinished part drawn live (live-text.ts, live-view.ts), and the work streaming costs
 * (markdown-blocks.ts), counted in characters searched and bytes allocated rather than timed.
 */
import assert from 'node:assert/strict';
import { Session } from 'node:inspector/promises';
import { afterEach, before, describe, test } from 'node:test';
import { Static } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { createElement as h } from 'react';
import type { Phase } from '#protocol';
import { EntryView, loadMarkdown } from '../src/ui/components/entry-view.ts';
import { LiveView } from '../src/ui/components/live-view.ts';
import { tailRows, wrapLine, wrapStyled } from '../src/ui/live-text.ts';
import { EMPTY_STREAM, feedMarkdown } from '../src/ui/markdown-blocks.ts';
import { renderMarkdown } from '../src/ui/markdown.ts';
import { EMPTY_TRANSCRIPT, type Entry, stepAll } from '../src/ui/transcript.ts';

afterEach(() => cleanup());
before(() => loadMarkdown());

/** ink-testing-library's terminal width, at which <Static> lays entries out. */
const COLUMNS = 100;

const words = (count: number) =>
  Array.from({ length: count }, (_, i) => ['alpha', 'be', 'gamma', 'delta', 'epsilonic'][i % 5]).join(' ');

/** The frame of finished entries as <Static> prints them, with its trailing spaces removed. */
function printed(entries: Entry[]): string[] {
  const view = render(
    h(Static<Entry>, { items: entries, children: (entry: Entry) => h(EntryView, { key: entry.id, entry }) }),
  );
  return (view.lastFrame() ?? '').split('\n').map((row) => row.trimEnd());
}

const markdownEntry = (text: string, depth = 0): Entry => ({ kind: 'markdown', id: 1, depth, text });

describe('finished Markdown', () => {
  test('inline code, emphasis and links inside list items render as they do in a paragraph', () => {
    const rendered = renderMarkdown(
      '- run `npm test` first\n- then **build** it\n  - nested `deep` item\n1. numbered `one`\n',
    );
    // Without colours (a pipe), inline code is its text: the backticks and asterisks are gone.
    assert.doesNotMatch(rendered, /[`*]{1,2}[a-z]/);
    assert.match(rendered, /run npm test first/);
    assert.match(rendered, /then build it/);
    assert.match(rendered, /nested deep item/);
    assert.match(rendered, /1\. numbered one/);
    // The same as in a paragraph, and in a loose list.
    assert.match(renderMarkdown('run `npm test` first'), /^run npm test first$/);
    assert.match(renderMarkdown('- run `npm test` first\n\n- then\n'), /run npm test first/);
  });

  test('a task item shows its box once', () => {
    assert.deepEqual(renderMarkdown('- [ ] open `a`\n- [x] done\n').split('\n'), [
      '  * [ ] open a',
      '  * [X] done',
    ]);
  });

  test('control characters in a list item are still removed', () => {
    assert.doesNotMatch(renderMarkdown('- item \u001b]0;title\u0007 `x\u001b[2J`\n'), /[\u0000-\u001f]/);
  });

  test('wrapped rows never start with the space they were cut at; list items go on under their text', () => {
    // Words that end exactly at the right edge are where Ink's own wrapping leaves a space.
    const edge = `${'x'.repeat(COLUMNS - 6)} word ${words(60)}`;
    const rows = printed([markdownEntry(`${edge}\n\n- item with \`code\` ${words(60)}\n`)]).filter(
      (row) => row !== '',
    );
    const item = rows.findIndex((row) => row.startsWith('  * item with code'));
    assert.ok(item > 1, rows.join('\n'));
    for (const row of rows.slice(0, item)) assert.match(row, /^\S/, row);
    for (const row of rows.slice(item + 1)) assert.match(row, /^ {4}\S/, row);
    for (const row of rows) assert.ok(row.length <= COLUMNS, row);
    // Nothing lost: the words are all there, in order.
    assert.equal(rows.slice(0, item).join(' '), edge);
  });

  test("a sub-agent's block wraps inside its indent", () => {
    const rows = printed([markdownEntry(words(80), 1)]).filter((row) => row !== '');
    assert.ok(rows.length > 2);
    for (const row of rows) assert.match(row, /^ {2}\S/, row);
  });

  test('styled rows keep their escape sequences whole and take no room for them', () => {
    const line = `\u001b[0mthe quick \u001b[33mbrown fox\u001b[39m jumps over\u001b[0m`;
    assert.equal(
      wrapStyled(line, 10),
      '\u001b[0mthe quick\n\u001b[33mbrown fox\u001b[39m\njumps over\u001b[0m',
    );
  });
});

describe('the live part of an answer', () => {
  test('rows are cut at spaces; only a word longer than a row is cut', () => {
    assert.deepEqual(wrapLine('abcdefghij klm nop', 10), ['abcdefghij', 'klm nop']);
    assert.deepEqual(wrapLine('the quick brown fox jumps', 10), ['the quick', 'brown fox', 'jumps']);
    assert.deepEqual(wrapLine(`ab ${'x'.repeat(25)} end`, 10), [
      'ab',
      'xxxxxxxxxx',
      'xxxxxxxxxx',
      'xxxxx end',
    ]);
    assert.deepEqual(wrapLine('- a list item that wraps', 12, 2), ['- a list', '  item that', '  wraps']);
    assert.deepEqual(wrapLine('古古古古 古古古', 10), ['古古古古', '古古古']);
  });

  test('a paragraph being written wraps at spaces in the live view', () => {
    // Styled text is not handed out as rows early: the whole paragraph stays live.
    const text = `Some **bold** words ${words(40)} and the end`;
    const phase = {
      runId: 'r',
      sessionId: 's',
      agentId: 'orchestrator',
      seq: 1,
      type: 'text',
      text,
    } as Phase;
    const { state } = stepAll(EMPTY_TRANSCRIPT, [
      { type: 'width', columns: 40 },
      { type: 'run_start', at: 0 },
      { type: 'phase', phase },
    ]);
    const view = render(
      h(LiveView, { transcript: state, width: 40, maxRows: 20, cancelling: false, now: 0 }),
    );
    const rows = (view.lastFrame() ?? '').split('\n').slice(0, -1);
    assert.ok(rows.length > 3, rows.join('\n'));
    const known = new Set(text.split(' '));
    for (const row of rows) {
      assert.match(row, /^\S/, row);
      for (const word of row.trim().split(' ')) assert.ok(known.has(word), `cut word "${word}" in "${row}"`);
    }
  });

  test('rows of a paragraph printed while it is written start at a word, after one space or two', () => {
    const text = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} ends here.`).join('  ');
    let stream = EMPTY_STREAM;
    const rows: string[] = [];
    for (let at = 0; at < text.length; at += 7) {
      const fed = feedMarkdown(stream, text.slice(at, at + 7), 40);
      stream = fed.stream;
      rows.push(...fed.rows);
    }
    assert.ok(rows.length > 10);
    for (const row of rows) assert.match(row, /^\S(.*\S)?$/, JSON.stringify(row));
    for (const row of rows) assert.ok(row.length <= 40, row);
  });

  test('the rows of a growing line stay put', () => {
    let text = '';
    let previous: string[] = [];
    for (const word of words(200).split(' ')) {
      text += `${word} `;
      const { rows } = tailRows(text, 40, 500);
      // Every row but the last (still filling) is the same as before.
      assert.deepEqual(rows.slice(0, previous.length - 1), previous.slice(0, -1));
      previous = rows;
    }
  });
});

/**
 * Characters the string searches of `run` look at: indexOf and its kin, and regular expressions
 * (an anchored one, only the characters it matched). Copying a string is not counted.
 */
function searched(run: () => void): number {
  let count = 0;
  type Search = (this: string, search: string, position?: number) => number;
  const targets: [object, string][] = [
    [String.prototype, 'indexOf'],
    [String.prototype, 'lastIndexOf'],
    [String.prototype, 'includes'],
    [RegExp.prototype, 'exec'],
  ];
  const saved = targets.map(
    ([target, name]) => Object.getOwnPropertyDescriptor(target, name) as PropertyDescriptor,
  );
  const indexOf = saved[0]?.value as Search;
  const lastIndexOf = saved[1]?.value as Search;
  const exec = saved[3]?.value as (this: RegExp, input: string) => RegExpExecArray | null;
  const patch = (target: object, name: string, value: unknown) =>
    Object.defineProperty(target, name, { value, writable: true, configurable: true });
  patch(String.prototype, 'indexOf', function (this: string, search: string, position?: number) {
    const found = indexOf.call(this, search, position);
    count += (found === -1 ? this.length : found + search.length) - (position ?? 0);
    return found;
  });
  patch(String.prototype, 'includes', function (this: string, search: string, position?: number) {
    const found = indexOf.call(this, search, position);
    count += (found === -1 ? this.length : found + search.length) - (position ?? 0);
    return found !== -1;
  });
  patch(String.prototype, 'lastIndexOf', function (this: string, search: string, position?: number) {
    const found = lastIndexOf.call(this, search, position);
    count += Math.min(this.length, position ?? this.length) - Math.max(0, found);
    return found;
  });
  patch(RegExp.prototype, 'exec', function (this: RegExp, input: string) {
    const start = this.global || this.sticky ? this.lastIndex : 0;
    const match = exec.call(this, input);
    const anchored = this.source.startsWith('^') && !this.multiline;
    count += anchored ? (match?.[0].length ?? 0) + 1 : input.length - start;
    return match;
  });
  try {
    run();
  } finally {
    for (const [index, [target, name]] of targets.entries()) {
      Object.defineProperty(target, name, saved[index] as PropertyDescriptor);
    }
  }
  return count;
}

/**
 * Bytes `run` allocates, garbage included (V8's sampling heap profiler): what copying strings costs.
 * A string that grows by a delta at a time and is then read is copied whole into one again.
 */
async function allocated(run: () => void): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    run();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    // Sampled with the objects garbage collection took (the flags above; @types/node lacks `samples`).
    const { samples } = profile as unknown as { samples: { size: number }[] };
    return samples.reduce((sum, sample) => sum + sample.size, 0);
  } finally {
    session.disconnect();
  }
}

describe('a long line without line breaks', () => {
  const json = JSON.stringify(Array.from({ length: 6000 }, (_, id) => ({ id, name: `item${id}`, ok: true })));
  const prose = words(40_000);
  const blob = Buffer.from(json)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x');

  /** Streams `line` in deltas of 16, with the width of a terminal. */
  const stream = (line: string) => () => {
    let state = EMPTY_STREAM;
    let rows = '';
    for (let at = 0; at < line.length; at += 16) {
      const fed = feedMarkdown(state, line.slice(at, at + 16), 100);
      state = fed.stream;
      rows += fed.rowsSource;
    }
    assert.equal(rows + state.text, line);
  };

  for (const [name, line] of [
    ['minified JSON', json.slice(0, 200_000)],
    ['base64', blob.slice(0, 200_000)],
    ['a sentence, then base64', `Here it is: ${blob.slice(0, 200_000)}`],
    ['JSON with spaces', json.replaceAll(',', ', ').slice(0, 200_000)],
    ['a paragraph with markup', `Some **bold** words ${prose}`.slice(0, 200_000)],
    ['a paragraph with a link', `See www.example.com and ${prose}`.slice(0, 200_000)],
    // Handed out row by row as it comes: linear before these changes too.
    ['a plain paragraph', prose.slice(0, 200_000)],
  ] as const) {
    test(`streaming ${name} costs work in proportion to its length, not to its length squared`, async () => {
      const half = line.slice(0, 100_000);
      const scans = [searched(stream(half)), searched(stream(line))] as const;
      assert.ok(scans[1] <= 20 * line.length, `${scans[1]} characters searched for ${line.length}`);
      assert.ok(
        scans[1] <= 2.5 * scans[0],
        `twice the text, ${(scans[1] / scans[0]).toFixed(1)} times the search`,
      );
      const bytes = [await allocated(stream(half)), await allocated(stream(line))] as const;
      assert.ok(bytes[1] <= 100 * line.length, `${bytes[1]} bytes allocated for ${line.length} characters`);
      assert.ok(
        bytes[1] <= 3 * bytes[0],
        `twice the text, ${(bytes[1] / bytes[0]).toFixed(1)} times the bytes`,
      );
    });
  }

  test('drawing the live tail of it looks at the rows shown, not at the whole line', () => {
    const line = blob.slice(0, 200_000);
    const small = searched(() => tailRows(line.slice(0, 20_000), 100, 20));
    const large = searched(() => tailRows(line, 100, 20));
    assert.ok(large <= 2 * small + 1000, `${large} against ${small}`);
    assert.equal(tailRows(line, 100, 20).rows.length, 20);
  });
});
