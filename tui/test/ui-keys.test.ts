/**
 * The key bindings against the docs: docs/tui.md's key tables list exactly the keys of
 * keybindings.ts (place by place, as /help prints them), and every key the user guide promises is
 * one /help lists.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { helpText } from '../src/ui/command-text.ts';
import { type BindingName, HELP, KEYS, keyOf, REPLAY_KEYS } from '../src/ui/keybindings.ts';
import { SLASH_COMMANDS } from '../src/ui/slash-commands.ts';

const doc = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

/** The rows of the Markdown table that starts with `header`, as cells. */
function table(text: string, header: string): string[][] {
  const lines = text.split('\n');
  const start = lines.indexOf(header);
  assert.notEqual(start, -1, `no table ${header}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The keys a cell names: "↑ / ↓" is two keys, each as keybindings.ts names it. */
const keysOf = (cell: string) => cell.replaceAll('`', '').split(' / ');

const labels = (names: readonly BindingName[]) => new Set(names.map((name) => KEYS[name].keys));

describe('key bindings and their docs', () => {
  test("docs/tui.md's key table lists every binding /help lists, place by place, and no other", () => {
    const documented = new Map<string, Set<string>>();
    let where = '';
    for (const [place = '', key = ''] of table(doc('tui.md'), '| Where | Key | Does |')) {
      if (place !== '') where = place.toLowerCase();
      const keys = documented.get(where) ?? new Set<string>();
      for (const name of keysOf(key)) keys.add(name);
      documented.set(where, keys);
    }
    assert.deepEqual(
      [...documented.keys()],
      HELP.map(({ where }) => where.toLowerCase()),
    );
    for (const { where, names } of HELP)
      assert.deepEqual(documented.get(where.toLowerCase()), labels(names), where);
  });

  test("docs/tui.md's replay table lists the replay viewer's bindings", () => {
    const documented = new Set(table(doc('tui.md'), '| Key | Does |').flatMap(([key = '']) => keysOf(key)));
    assert.deepEqual(documented, labels(REPLAY_KEYS));
  });

  test('every binding is listed somewhere: /help or the replay viewer', () => {
    const listed = new Set([...HELP.flatMap(({ names }) => names), ...REPLAY_KEYS]);
    assert.deepEqual(
      Object.keys(KEYS).filter((name) => !listed.has(name as BindingName)),
      [],
    );
  });

  test('every key the user guide promises is one /help lists', () => {
    const help = helpText(SLASH_COMMANDS);
    const guide = doc('user-guide.md');
    const promised = [
      ...table(guide, '| key | does |').map(([key = '']) => key),
      // The approvals table: its first column is the UI's key ("—": none).
      ...table(guide, '| in the UI | in `santra -p` | answer |')
        .map(([key = '']) => key)
        .filter((key) => key !== '—'),
    ].flatMap(keysOf);
    assert.ok(promised.length >= 12, promised.join(' '));
    const inHelp = labels(HELP.flatMap(({ names }) => names));
    for (const key of promised) {
      assert.ok(inHelp.has(key), `the user guide promises ${key}, /help does not list it`);
      assert.ok(help.includes(`  ${key} `), `/help does not print ${key}`);
    }
  });
});

describe('hints on the screen name keys from the one table', () => {
  test('keyOf names the first way to press a binding, as a hint says it', () => {
    assert.equal(keyOf('abort'), 'Esc');
    assert.equal(keyOf('exit'), 'Ctrl+C');
    assert.equal(keyOf('expandOutput'), 'Ctrl+O');
    assert.equal(keyOf('submit'), 'Enter');
    assert.equal(keyOf('pageDown'), 'PgDn');
    assert.equal(keyOf('newline'), 'Alt+Enter');
    assert.equal(keyOf('replayPause'), 'Space');
    assert.equal(keyOf('filter'), 'letters');
    // Every binding a hint can name is pressable as it is named.
    for (const name of Object.keys(KEYS) as BindingName[]) {
      if (KEYS[name].chords.length > 0) assert.ok(KEYS[name].keys.includes(keyOf(name)), name);
    }
  });

  test('no source file outside keybindings.ts spells a key in a string: hints take it from keyOf', () => {
    const root = new URL('../src/', import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('keybindings.ts'),
    );
    assert.ok(files.length > 20);
    const spelled: string[] = [];
    for (const file of files) {
      readFileSync(new URL(file, root), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          // Code, not comments: a key named in a comment is documentation.
          if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
          for (const literal of line.match(/(['`"])(?:(?!\1).)*\1/g) ?? []) {
            if (/\b(Esc|Ctrl\+[A-Z]|Alt\+\w+|PgUp|PgDn)\b|\bEnter[:\s]/.test(literal))
              spelled.push(`${file}:${index + 1}: ${literal}`);
          }
        });
    }
    assert.deepEqual(spelled, []);
  });
});
