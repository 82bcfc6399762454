/**
 * Every key binding of the interactive UI, in one table: components ask `pressed(binding, input,
 * key)` instead of testing keys themselves, and /help is written from the same table, so a binding
 * and its description cannot drift apart.
 */
import type { Key } from 'ink';

/** One way to press a binding: a character (with or without Ctrl/Meta) or a named key. */
export interface Chord {
  /** A printable character, compared case-insensitively; with `ctrl`, the letter of Ctrl+letter. */
  char?: string;
  /** A named key of Ink's `Key`, e.g. `escape`, `return`, `upArrow`. */
  key?: NamedKey;
  ctrl?: boolean;
  meta?: boolean;
  /** With a named key: Shift must be held (true) or not (false); absent: either. */
  shift?: boolean;
}

type NamedKey =
  | 'upArrow'
  | 'downArrow'
  | 'leftArrow'
  | 'rightArrow'
  | 'pageUp'
  | 'pageDown'
  | 'home'
  | 'end'
  | 'return'
  | 'escape'
  | 'tab'
  | 'backspace'
  | 'delete';

export interface Binding {
  chords: Chord[];
  /** How /help names the keys. */
  keys: string;
  /** What the binding does, for /help. */
  does: string;
}

const chord = (spec: Chord): Chord => spec;
const bind = (keys: string, does: string, ...chords: Chord[]): Binding => ({ chords, keys, does });

export const KEYS = {
  // Anywhere in the chat.
  abort: bind('Esc', 'stop the running run (the server cancels it)', chord({ key: 'escape' })),
  exit: bind('Ctrl+C twice', 'exit santra', chord({ char: 'c', ctrl: true })),
  clearScreen: bind('Ctrl+L', 'clear the screen', chord({ char: 'l', ctrl: true })),
  expandOutput: bind(
    'Ctrl+O',
    'print the whole output of the last tool call (with the diff of a change you allowed); again: the one before',
    chord({ char: 'o', ctrl: true }),
  ),
  cycleMode: bind(
    'Shift+Tab',
    'next permission mode: default → acceptEdits → plan → bypassPermissions (the bar shows it; from the next message on)',
    chord({ key: 'tab', shift: true }),
  ),
  // The composer.
  submit: bind(
    'Enter',
    'send the message (queued while a run goes on or santra starts)',
    chord({ key: 'return' }),
  ),
  newline: bind(
    'Alt+Enter, Ctrl+J, or \\ then Enter',
    'new line',
    chord({ key: 'return', meta: true }),
    chord({ char: '\n' }), // Ctrl+J sends a line feed
  ),
  historyPrevious: bind('↑', 'previous message (on the first line)', chord({ key: 'upArrow' })),
  historyNext: bind('↓', 'next message (on the last line)', chord({ key: 'downArrow' })),
  rewind: bind(
    'Esc Esc',
    'on an empty composer, nothing running: go back to an earlier prompt (a list); it comes back here to edit (/rewind)',
    chord({ key: 'escape' }),
    // Two presses that arrive in one read come as Esc with Alt.
    chord({ key: 'escape', meta: true }),
  ),
  complete: bind('Tab', 'complete the slash command', chord({ key: 'tab', shift: false })),
  cursorLeft: bind('←', 'cursor left', chord({ key: 'leftArrow' })),
  cursorRight: bind('→', 'cursor right', chord({ key: 'rightArrow' })),
  lineStart: bind(
    'Ctrl+A, Home',
    'start of the line',
    chord({ char: 'a', ctrl: true }),
    chord({ key: 'home' }),
  ),
  lineEnd: bind('Ctrl+E, End', 'end of the line', chord({ char: 'e', ctrl: true }), chord({ key: 'end' })),
  deleteBack: bind('Backspace', 'delete back', chord({ key: 'backspace' }), chord({ key: 'delete' })),
  clearLine: bind('Ctrl+U', 'clear the input', chord({ char: 'u', ctrl: true })),
  // The approval overlay.
  allow: bind('y', 'allow this change or command', chord({ char: 'y' })),
  allowAll: bind(
    'a',
    'allow everything for the rest of the session (not offered for a protected location)',
    chord({ char: 'a' }),
  ),
  reject: bind('r, n', 'reject', chord({ char: 'r' }), chord({ char: 'n' })),
  feedback: bind('f', 'reject with feedback for the agent (type it, Enter; Esc: back)', chord({ char: 'f' })),
  hunkNext: bind(
    '↓, j',
    'next hunk of a change (to choose hunks)',
    chord({ key: 'downArrow' }),
    chord({ char: 'j' }),
  ),
  hunkPrevious: bind('↑, k', 'previous hunk', chord({ key: 'upArrow' }), chord({ char: 'k' })),
  hunkToggle: bind(
    'Space',
    'apply this hunk or not (y then allows the hunks kept; none kept is a reject)',
    chord({ char: ' ' }),
  ),
  editProposal: bind(
    'e',
    'edit the proposed file (with the hunks kept) or command in $VISUAL/$EDITOR, then allow what you saved',
    chord({ char: 'e' }),
  ),
  expandDiff: bind('p', 'print the whole diff above, into the scrollback', chord({ char: 'p' })),
  // Lists (question options, pickers).
  up: bind('↑', 'previous', chord({ key: 'upArrow' })),
  down: bind('↓', 'next', chord({ key: 'downArrow' })),
  pick: bind('Enter', 'choose', chord({ key: 'return' })),
  option: bind(
    '1-9',
    "an agent's question: choose that option",
    ...'123456789'.split('').map((digit) => chord({ char: digit })),
  ),
  // What the UI itself cuts to the screen: a long diff in the approval overlay, a long list. The
  // transcript is the terminal's own scrollback, which the terminal scrolls (Shift+PgUp, the wheel).
  pageUp: bind('PgUp', 'a page up in a long diff or list', chord({ key: 'pageUp' })),
  pageDown: bind('PgDn', 'a page down in a long diff or list', chord({ key: 'pageDown' })),
  back: bind('Esc', 'clear the filter, or close without choosing', chord({ key: 'escape' })),
  // Typing in a list of models or sessions filters it: any printable key, so no chord of its own.
  filter: bind('letters', 'filter the list (Backspace: undo a letter)'),
  // The replay viewer (santra replay FILE).
  replayPause: bind('Space', 'pause / play on', chord({ char: ' ' })),
  replayFaster: bind('+', 'faster (up to 16x)', chord({ char: '+' }), chord({ char: '=' })),
  replaySlower: bind('-', 'slower (down to 0.5x)', chord({ char: '-' }), chord({ char: '_' })),
  replayEnd: bind('End', 'jump to the end', chord({ key: 'end' })),
  replayQuit: bind('q, Ctrl+C', 'quit', chord({ char: 'q' }), chord({ char: 'c', ctrl: true })),
} satisfies Record<string, Binding>;

export type BindingName = keyof typeof KEYS;

/**
 * What /help lists, place by place: every binding but the replay viewer's (which shows its own on
 * its status line). docs/tui.md's key tables list the same keys, a test holds them together.
 */
export const HELP: readonly { where: string; names: readonly BindingName[] }[] = [
  { where: 'Anywhere', names: ['abort', 'exit', 'clearScreen', 'expandOutput', 'cycleMode'] },
  {
    where: 'Composer',
    names: [
      'submit',
      'newline',
      'historyPrevious',
      'historyNext',
      'rewind',
      'complete',
      'cursorLeft',
      'cursorRight',
      'lineStart',
      'lineEnd',
      'deleteBack',
      'clearLine',
    ],
  },
  {
    where: 'Approval overlay',
    names: [
      'allow',
      'allowAll',
      'reject',
      'feedback',
      'hunkNext',
      'hunkPrevious',
      'hunkToggle',
      'editProposal',
      'expandDiff',
      'pageUp',
      'pageDown',
    ],
  },
  {
    where: 'Lists (models, sessions, options)',
    names: ['up', 'down', 'pageUp', 'pageDown', 'pick', 'back', 'filter', 'option'],
  },
];

/** The bindings of the replay viewer (`santra replay FILE`), in the order docs/tui.md lists them. */
export const REPLAY_KEYS: readonly BindingName[] = [
  'replayPause',
  'replayFaster',
  'replaySlower',
  'replayEnd',
  'replayQuit',
];

/** Whether `input`/`key` (as Ink's useInput reports them) is a press of `binding`. */
export function pressed(binding: Binding, input: string, key: Key): boolean {
  return binding.chords.some((c) => matches(c, input, key));
}

function matches(c: Chord, input: string, key: Key): boolean {
  if ((c.ctrl ?? false) !== key.ctrl) return false;
  if (c.key !== undefined) {
    if (!key[c.key]) return false;
    if (c.shift !== undefined && c.shift !== key.shift) return false;
    return (c.meta ?? false) === key.meta;
  }
  if (c.char === undefined) return false;
  if (!c.ctrl && key.meta !== (c.meta ?? false)) return false;
  return input.toLowerCase() === c.char;
}

const KEY_NAMES: Record<NamedKey, string> = {
  upArrow: '↑',
  downArrow: '↓',
  leftArrow: '←',
  rightArrow: '→',
  pageUp: 'PgUp',
  pageDown: 'PgDn',
  home: 'Home',
  end: 'End',
  return: 'Enter',
  escape: 'Esc',
  tab: 'Tab',
  backspace: 'Backspace',
  delete: 'Delete',
};

/**
 * How a hint on the screen names a binding: its first way to press it ("Esc", "Ctrl+O", "Enter").
 * Every hint takes its key from here, so a binding changed in KEYS changes every hint with it.
 */
export function keyOf(name: BindingName): string {
  const first = KEYS[name].chords[0];
  if (first === undefined) return KEYS[name].keys;
  const prefix = `${first.ctrl === true ? 'Ctrl+' : ''}${first.meta === true ? 'Alt+' : ''}${first.shift === true ? 'Shift+' : ''}`;
  if (first.key !== undefined) return prefix + KEY_NAMES[first.key];
  const char = first.char === ' ' ? 'Space' : (first.char ?? '');
  return prefix + (first.ctrl === true ? char.toUpperCase() : char);
}

/** The lines of /help about keys: a heading for each place, then its keys. */
export function keyHelp(): string[] {
  const width = Math.max(...HELP.flatMap(({ names }) => names.map((name) => KEYS[name].keys.length)));
  return HELP.flatMap(({ where, names }) => [
    `${where}:`,
    ...names.map((name) => `  ${KEYS[name].keys.padEnd(width)}  ${KEYS[name].does}`),
  ]);
}
