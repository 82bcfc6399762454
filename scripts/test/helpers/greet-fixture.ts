/**
 * The file the LSP tests fix, in-process (server/test/lsp-adapter.test.ts) and through Neovim
 * (scripts/test/lsp-nvim.test.ts): greet.js before and after, the line a user adds without saving,
 * and the model's turns that read the file and replace the expression in it.
 */
import type { FakeTurn } from '../../../conformance-tests/src/fake-providers/index.ts';

export const ORIGINAL = 'export function greet(name) {\n  return "Hello " + name;\n}\n';
export const FIXED = 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n';

/** A line the user typed into the buffer and did not save. */
export const UNSAVED_LINE = '// greet() is called from main.js';

/** The model reads greet.js, then replaces the expression in it. */
export const readThenFixTurns = (): FakeTurn[] => [
  { toolCalls: [{ id: 't1', name: 'read_file', args: { path: 'greet.js' } }] },
  {
    toolCalls: [
      {
        id: 't2',
        name: 'str_replace',
        args: { path: 'greet.js', oldStr: '"Hello " + name', newStr: '`Hello, ${name}!`' },
      },
    ],
  },
  { text: 'Fixed greet().' },
];
