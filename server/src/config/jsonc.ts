/**
 * Reading Santra's own files (config.json, .agents/*.json) as JSON with comments and trailing
 * commas — as the docs show them, and as VS Code's settings are — with jsonc-parser. A problem is
 * reported by position and reason only: a message must never quote the input, which in a config
 * file may be an API key.
 */
import { findNodeAtLocation, type ParseError, parse, parseTree, printParseErrorCode } from 'jsonc-parser';

export type JsoncResult =
  | { ok: true; value: unknown }
  | {
      ok: false;
      /** What is wrong, without quoting the input. */
      reason: string;
      /** 1-based. */
      line: number;
      /** 1-based, in UTF-16 code units. */
      column: number;
    };

/** By jsonc-parser's error names (its codes are a const enum, which erasable TypeScript cannot read). */
const REASONS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":" after a property name',
  CommaExpected: 'expected "," between entries',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'unexpected content after the end of the value',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unexpected end of file inside a comment',
  UnexpectedEndOfString: 'unexpected end of file inside a string',
  UnexpectedEndOfNumber: 'unexpected end of file inside a number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in a string (a control character must be escaped)',
};

export function parseJsonc(text: string): JsoncResult {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first === undefined) return { ok: true, value };
  // An error at the very end is the file ending early, whatever the parser expected there.
  const atEnd = first.offset >= text.trimEnd().length;
  // An unquoted name (`oops: 1`) is an invalid symbol where a property name should be.
  const unquotedName =
    printParseErrorCode(first.error) === 'InvalidSymbol' &&
    errors[1] !== undefined &&
    printParseErrorCode(errors[1].error) === 'PropertyNameExpected';
  const reason = atEnd
    ? 'unexpected end of file'
    : unquotedName
      ? 'unexpected character, expected a property name in double quotes'
      : (REASONS[printParseErrorCode(first.error)] ?? 'invalid JSON');
  const before = text.slice(0, first.offset);
  return {
    ok: false,
    reason,
    line: before.split('\n').length,
    column: first.offset - before.lastIndexOf('\n'),
  };
}

/**
 * The 1-based line of the property at `path` in `text` (its name, for a property; the nearest
 * enclosing one that exists otherwise), or undefined when none can be found.
 */
export function lineOf(text: string, path: readonly PropertyKey[]): number | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (root === undefined) return undefined;
  for (let depth = path.length; depth > 0; depth--) {
    const segments = path.slice(0, depth).map((key) => (typeof key === 'number' ? key : String(key)));
    const node = findNodeAtLocation(root, segments);
    if (node === undefined) continue;
    // A property's value node: its line is the line of the property's name.
    const offset = node.parent?.type === 'property' ? node.parent.offset : node.offset;
    return text.slice(0, offset).split('\n').length;
  }
  return undefined;
}
