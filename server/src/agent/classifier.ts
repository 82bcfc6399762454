/**
 * Routes a prompt before any model call, by rules a reader can check: a greeting gets one plain model
 * call, a general knowledge question gets one plain model call, and everything else goes to the
 * agent loop with its tools.
 *
 * The rules lean towards `agent_task`: sending a question to the agent only costs a tool list the
 * model may ignore, while answering a project question without tools gives a wrong answer. So a
 * prompt is `simple_chat` only when every word is a greeting, `direct_answer` only when it reads as
 * a question and shows no sign of the project, and `agent_task` in every other case.
 *
 * Every check is a single pass over the text or over short tokens (long tokens and lines are
 * skipped), so a 100 KB paste is classified in linear time.
 */

// ---------------------------------------------------------------------------------------------
// Rules. Words are matched lower-cased, after Unicode normalisation (NFKD, combining marks
// removed), so "Adiós" matches "adios". Phrases are words separated by one space.
// ---------------------------------------------------------------------------------------------

/** Greetings and acknowledgements that make up a whole `simple_chat` prompt, in any language. */
const GREETINGS = [
  'hello', 'hi', 'hey', 'heya', 'hiya', 'howdy', 'yo', 'sup', 'greetings', 'good morning',
  'good afternoon', 'good evening', 'good night', 'morning', 'evening', 'gm', 'thanks', 'thank you',
  'thank u', 'thx', 'ty', 'tysm', 'tyvm', 'cheers', 'ok', 'okay', 'okey', 'k', 'kk', 'alright',
  'all right', 'cool', 'great', 'nice', 'awesome', 'perfect', 'got it', 'gotcha', 'understood',
  'noted', 'bye', 'goodbye', 'good bye', 'bye bye', 'see you', 'see ya', 'cya', 'later', 'lol',
  'haha', 'wow', 'how are you', "how's it going", "what's up", 'whats up', 'wassup',
  "you're welcome", 'no problem', 'np',
  // Other languages: greetings, thanks and goodbyes.
  'bonjour', 'bonsoir', 'salut', 'coucou', 'merci', 'merci beaucoup', 'au revoir', 'hola',
  'buenos días', 'buenas tardes', 'buenas noches', 'gracias', 'muchas gracias', 'adiós', 'ciao',
  'buongiorno', 'grazie', 'hallo', 'guten morgen', 'guten tag', 'danke', 'danke schön', 'tschüss',
  'servus', 'olá', 'oi', 'obrigado', 'obrigada', 'hej', 'tack', 'dank je', 'bedankt', 'cześć',
  'dzięki', 'merhaba', 'teşekkürler', 'привет', 'здравствуйте', 'спасибо', 'пока', 'こんにちは',
  'こんばんは', 'おはよう', 'おはようございます', 'ありがとう', 'ありがとうございます', '你好', '您好',
  '谢谢', '再见', '안녕', '안녕하세요', '감사합니다', 'namaste', 'नमस्ते', 'धन्यवाद', 'مرحبا', 'شكرا',
  'שלום', 'תודה',
]; // prettier-ignore

/** Words that may accompany a greeting without making it more than small talk ("thanks a lot!"). */
const GREETING_COMPANIONS = new Set([
  'there', 'again', 'so', 'much', 'very', 'a', 'lot', 'all', 'everyone', 'guys', 'folks', 'friend',
  'buddy', 'mate', 'man', 'santra', 'bot', 'for', 'the', 'help', 'and', 'too', 'you', 'then', 'doing',
  'today',
]); // prettier-ignore

/** Small talk is short; longer prompts skip the greeting check (which also bounds its cost). */
const MAX_GREETING_CHARS = 200;

/**
 * Verbs that, opening a clause, ask Santra to do something (in the project, so with tools).
 * "explain" and "describe" are not here: they ask for knowledge.
 */
const ACTION_VERBS = new Set([
  'fix', 'write', 'create', 'add', 'implement', 'refactor', 'rename', 'run', 'test', 'build',
  'install', 'uninstall', 'debug', 'update', 'upgrade', 'change', 'delete', 'remove', 'edit',
  'modify', 'review', 'find', 'search', 'grep', 'list', 'open', 'show', 'read', 'check', 'look',
  'inspect', 'analyze', 'analyse', 'audit', 'scan', 'generate', 'make', 'setup', 'configure',
  'commit', 'push', 'pull', 'merge', 'rebase', 'deploy', 'migrate', 'format', 'lint', 'optimize',
  'optimise', 'convert', 'port', 'move', 'copy', 'rewrite', 'replace', 'patch', 'revert', 'compile',
  'execute', 'start', 'stop', 'restart', 'clean', 'bump', 'document', 'scaffold', 'init',
  'initialize', 'benchmark', 'profile', 'diagnose', 'troubleshoot', 'improve', 'split', 'extract',
  'insert', 'append', 'apply', 'integrate', 'cd', 'ls', 'cat',
]); // prettier-ignore

/** Words skipped at the start of a clause before looking for an action verb or a question. */
const LEAD_INS = new Set([
  'please', 'pls', 'plz', 'kindly', 'can', 'could', 'would', 'will', 'you', 'u', 'now', 'then',
  'also', 'just', 'go', 'ahead', 'and', 'so', 'i', "i'd", 'want', 'need', 'like', 'to', 'help',
  'me', "let's", 'lets', 'let', 'us', 'try', 'quickly', 'first', 'next', 'finally', 'santra',
]); // prettier-ignore

/** Openings of a general knowledge question (`direct_answer` when nothing points at the project). */
const QUESTION_OPENERS = [
  'what is', 'what are', "what's", 'whats', 'what was', 'what were', 'what does', 'what do',
  'explain', 'describe', 'define', 'tell me', 'difference between', 'compare', 'how does', 'how do',
  'how is', 'how can', 'how to', 'how would', 'why does', 'why do', 'why is', 'why are', 'who is',
  'who was', 'who invented', 'when was', 'when did', 'which is', 'is there',
]; // prettier-ignore

/** Words that always point at something the user has in front of them ("this function"). */
const CONTEXT_WORDS = new Set(['this', 'these', 'my', 'our']);

/** Nouns that, after "the", name the user's project ("run the tests", "in the repo"). */
const PROJECT_NOUNS = new Set([
  'repo', 'repository', 'project', 'codebase', 'code', 'tests', 'build', 'workspace', 'branch',
  'diff', 'commit', 'error', 'bug', 'logs', 'output', 'readme',
]); // prettier-ignore

/** Extensions that make `name.ext` a file name. One-letter ones other than c and h are too ambiguous. */
const CODE_EXTENSIONS = new Set([
  'ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'py', 'pyi', 'ipynb', 'rb', 'go', 'rs',
  'java', 'kt', 'kts', 'scala', 'swift', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'cs', 'fs', 'php',
  'pl', 'pm', 'lua', 'dart', 'ex', 'exs', 'erl', 'clj', 'cljs', 'elm', 'hs', 'ml', 'mli', 'nim',
  'zig', 'sol', 'sh', 'bash', 'zsh', 'fish', 'ps1', 'bat', 'cmd', 'sql', 'html', 'htm', 'css',
  'scss', 'sass', 'less', 'vue', 'svelte', 'astro', 'json', 'jsonc', 'json5', 'yaml', 'yml', 'toml',
  'ini', 'cfg', 'conf', 'env', 'xml', 'md', 'mdx', 'rst', 'txt', 'csv', 'tsv', 'lock', 'log',
  'gradle', 'tf', 'tfvars', 'proto', 'graphql', 'gql', 'mk', 'cmake', 'patch', 'diff', 'tex', 'nix',
  'mod', 'sum', 'ejs', 'hbs', 'j2', 'dockerfile',
]); // prettier-ignore

/** `name.js` words that name a technology, not a file ("What is Node.js?"). */
const TECH_NAMES = new Set([
  'node.js', 'vue.js', 'next.js', 'nuxt.js', 'react.js', 'express.js', 'nest.js', 'd3.js',
  'three.js', 'chart.js', 'ember.js', 'backbone.js', 'angular.js', 'solid.js', 'alpine.js', 'p5.js',
  'knockout.js', 'meteor.js', 'tensorflow.js', 'pixi.js', 'babylon.js', 'phaser.js', 'brain.js',
]); // prettier-ignore

/** File names without an extension, and dotfiles, that are always files. */
const KNOWN_FILES = new Set([
  'makefile', 'dockerfile', 'containerfile', 'gemfile', 'rakefile', 'procfile', 'jenkinsfile',
  'vagrantfile', 'justfile', 'codeowners', '.env', '.gitignore', '.gitattributes', '.npmrc',
  '.nvmrc', '.editorconfig', '.prettierrc', '.eslintrc', '.babelrc', '.dockerignore', '.bashrc',
  '.zshrc', '.profile', '.vimrc', '.github', '.vscode',
]); // prettier-ignore

/** First directories of a relative path like `src/auth`; "TCP/IP" or "client/server" are not paths. */
const KNOWN_DIRS = new Set([
  'src', 'lib', 'test', 'tests', 'spec', 'app', 'docs', 'bin', 'scripts', 'packages', 'dist',
  'config', 'public', 'assets', 'components', 'pages', 'cmd', 'internal', 'pkg', 'node_modules',
  'vendor', 'server', 'tui',
]); // prettier-ignore

/** Lines of a pasted stack trace or error report (each tested on one trimmed line). */
const TRACE_LINES: RegExp[] = [
  /^at\s+\S.*(?::\d+:\d+\)?|\.\w+:\d+\))$/, // JavaScript: at f (file.js:12:3); Java: at a.B.c(B.java:12)
  /^Traceback \(most recent call last\)/, // Python
  /^File "[^"]+", line \d+/, // Python frame
  /^Exception in thread "/, // Java
  /^Caused by: /, // Java
  /^goroutine \d+ \[/, // Go
  /^panic: /, // Go
  /^error(?:\[\w+\])?: /, // Rust, compilers
  /^(?:Uncaught\s+)?[\w.$]*(?:Error|Exception)(?:\s*\[[\w-]+\])?: /, // TypeError: …, Error [ERR_X]: …
];

/** Lines that end or begin like code; two of them make a paste `agent_task`. */
const CODE_LINE_ENDINGS = ['{', '}', ';'];
const CODE_LINE_STARTS =
  /^(?:def|class|function|import|const|let|var|fn|func|public|private|package|#include)\s/;
const CODE_LINES_NEEDED = 2;

// Tokens and lines longer than these are not file names or stack frames; skipping them keeps
// every regular expression on short input.
const MAX_TOKEN = 300;
const MAX_LINE = 1000;
const MAX_SNIPPET = 40;

// ---------------------------------------------------------------------------------------------

/** Where a prompt goes: one plain model call (`simple_chat`, `direct_answer`) or the agent loop. */
export type Route = 'simple_chat' | 'direct_answer' | 'agent_task';

/** A route and why it was chosen. */
export interface Classification {
  route: Route;
  /** A short human-readable reason, shown to the user in a status line, e.g. "mentions a file (src/auth.ts)". */
  reason: string;
}

/**
 * Classifies a prompt without any model call. Never throws; unsure cases are `agent_task`.
 * The empty prompt is `simple_chat`: there is nothing to work on, and one model call answering
 * politely is a better reply than starting the agent loop or failing the request.
 */
export function classifyPrompt(text: string): Classification {
  if (text.trim() === '') return { route: 'simple_chat', reason: 'empty prompt: nothing to work on' };
  const chat = greetingOnly(text);
  if (chat !== undefined) return { route: 'simple_chat', reason: chat };
  const clauses = clauseSignals(text);
  const agent = text.includes('```')
    ? 'contains a code block'
    : (traceOrCode(text) ?? fileMention(text) ?? inlineCode(text) ?? clauses.agent);
  if (agent !== undefined) return { route: 'agent_task', reason: agent };
  const question = clauses.question ?? endsWithQuestionMark(text);
  if (question !== undefined) return { route: 'direct_answer', reason: question };
  return {
    route: 'agent_task',
    reason: 'neither small talk nor a general question, so it may need the project',
  };
}

const normalise = (s: string): string =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'");

const phrases = (list: string[]): string[][] =>
  list.map((entry) => normalise(entry).split(' ')).sort((a, b) => b.length - a.length);
const GREETING_PHRASES = phrases(GREETINGS);
const GREETING_WORDS = new Set(GREETING_PHRASES.filter((p) => p.length === 1).map((p) => p.join('')));
const OPENER_PHRASES = phrases(QUESTION_OPENERS);

// Reasons fit a status line whatever the prompt holds.
const clip = (s: string): string => (s.length > MAX_SNIPPET ? `${s.slice(0, MAX_SNIPPET)}…` : s);
const quote = (s: string): string => `"${clip(s)}"`;

/** Also tries the word with letter runs squeezed, so "heyyy" and "cooool" are greetings. */
function wordMatches(word: string, wanted: string): boolean {
  return (
    word === wanted ||
    word.replace(/(\p{L})\1{2,}/gu, '$1$1') === wanted ||
    word.replace(/(\p{L})\1+/gu, '$1') === wanted
  );
}

function greetingOnly(text: string): string | undefined {
  if (text.length > MAX_GREETING_CHARS) return undefined;
  const words = normalise(text)
    .split(/[^\p{L}\p{N}']+/u)
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word !== '');
  if (words.length === 0) return 'only emoji or punctuation';
  let greeted = false;
  for (let i = 0; i < words.length;) {
    const phrase = GREETING_PHRASES.find((p) => p.every((w, k) => wordMatches(words[i + k] ?? '', w)));
    if (phrase !== undefined) {
      greeted = true;
      i += phrase.length;
    } else if (GREETING_COMPANIONS.has(words[i] ?? '')) i++;
    else return undefined;
  }
  if (!greeted) return undefined;
  return `a greeting or acknowledgement (${quote(text.trim())})`;
}

function traceOrCode(text: string): string | undefined {
  let codeLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.length > MAX_LINE) continue;
    if (TRACE_LINES.some((pattern) => pattern.test(line))) {
      return `contains a stack trace or error (${quote(line)})`;
    }
    if (CODE_LINE_ENDINGS.some((end) => line.endsWith(end)) || CODE_LINE_STARTS.test(line)) codeLines++;
  }
  return codeLines >= CODE_LINES_NEEDED ? 'contains pasted code' : undefined;
}

const OPENING = new Set(['"', "'", '(', '[', '{', '<', '`']);
const CLOSING = new Set(['"', "'", ')', ']', '}', '>', '`', ',', ';', '!', '?', '.', ':']);

function fileMention(text: string): string | undefined {
  for (const raw of text.split(/\s+/)) {
    if (raw.length < 2 || raw.length > MAX_TOKEN) continue;
    let start = 0;
    let end = raw.length;
    while (start < end && OPENING.has(raw.charAt(start))) start++;
    while (end > start && CLOSING.has(raw.charAt(end - 1))) end--;
    // Drops a possessive and a :line:column suffix ("auth.ts's", "app.js:12:3").
    const token = raw
      .slice(start, end)
      .replace(/['\u2019]s$/, '')
      .replace(/:\d+(?::\d+)?$/, '');
    const kind = pathKind(token);
    if (kind !== undefined) return `mentions a ${kind} (${clip(token)})`;
  }
  return undefined;
}

function pathKind(token: string): 'file' | 'path' | 'URL' | undefined {
  if (!/\p{L}/u.test(token)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\/\S/i.test(token)) return 'URL';
  const lower = token.toLowerCase();
  if (KNOWN_FILES.has(lower)) return 'file';
  if (!/^[\p{L}\p{N}_.@+~*\-/\\:$#%]+$/u.test(token)) return undefined;
  // Absolute, home-relative, dot-relative, Windows drive paths and globs.
  if (/^(?:\/|~\/|\.{1,2}[/\\]|[a-z]:[/\\])[\p{L}\p{N}_.@-]/iu.test(token)) return 'path';
  if (/\*[./]|\/\*/.test(token)) return 'path';
  const segments = lower.split('/');
  const last = segments.at(-1) ?? '';
  const dot = last.lastIndexOf('.');
  if (dot > 0 && CODE_EXTENSIONS.has(last.slice(dot + 1)) && !TECH_NAMES.has(last)) return 'file';
  if (segments.length === 1 || segments.slice(0, -1).some((segment) => segment === '')) return undefined;
  if (segments.length > 2 || last === '' || KNOWN_DIRS.has(segments[0] ?? '')) return 'path';
  return undefined;
}

/** The first inline `code` span (on one line) that looks like code: one word, or code punctuation. */
function inlineCode(text: string): string | undefined {
  let open = text.indexOf('`');
  while (open !== -1) {
    const close = text.indexOf('`', open + 1);
    if (close === -1) return undefined;
    const span = text.slice(open + 1, close);
    if (span.includes('\n')) {
      open = close;
      continue;
    }
    const code = span.trim();
    if (code !== '' && code.length <= MAX_TOKEN && (!/\s/.test(code) || /[(){}[\];=<>.:/$]/.test(code))) {
      return `quotes code (\`${clip(code)}\`)`;
    }
    open = text.indexOf('`', close + 1);
  }
  return undefined;
}

// A word may hold inner dots and hyphens ("e.g", "cherry-pick"). Clause boundaries are sentence
// punctuation, newlines and "then". The repeated group starts with a character the word class
// lacks, so the scan cannot backtrack.
const CLAUSE_TOKENS = /[\p{L}\p{N}_']+(?:[.-][\p{L}\p{N}_']+)*|[.!?;:,\n]/gu;
const BOUNDARY = '|';

function clauseTokens(text: string): string[] {
  const tokens: string[] = [BOUNDARY];
  for (const [token] of normalise(text).matchAll(CLAUSE_TOKENS)) {
    const word = token.replace(/^'+|'+$/g, '');
    if (/^[.!?;:,\n]$/.test(token) || word === 'then') tokens.push(BOUNDARY);
    else if (word !== '') tokens.push(word);
  }
  return tokens;
}

const startsWith = (tokens: string[], at: number, phrase: string[]): boolean =>
  phrase.every((word, k) => tokens[at + k] === word);

/**
 * Looks at every word for a reference to the user's project, and at every clause start (past
 * lead-ins like "please can you") for an action verb or a question opener.
 */
function clauseSignals(text: string): { agent?: string; question?: string } {
  const tokens = clauseTokens(text);
  let question: string | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i] ?? '';
    const next = tokens[i + 1] ?? BOUNDARY;
    if (CONTEXT_WORDS.has(word)) {
      return { agent: `refers to your project (${quote(next === BOUNDARY ? word : `${word} ${next}`)})` };
    }
    if (word === 'the' && PROJECT_NOUNS.has(next)) {
      return { agent: `refers to your project (${quote(`the ${next}`)})` };
    }
    if (word !== BOUNDARY) continue;
    let at = i + 1;
    while (LEAD_INS.has(tokens[at] ?? '') || GREETING_WORDS.has(tokens[at] ?? '')) at++;
    const opening = tokens[at] ?? '';
    if (ACTION_VERBS.has(opening)) return { agent: `asks for an action (${quote(opening)})` };
    const opener = OPENER_PHRASES.find((phrase) => startsWith(tokens, at, phrase));
    if (opener !== undefined) question ??= `a general question (${quote(opener.join(' '))})`;
  }
  return { question };
}

// Trailing emoji, quotes, markup and spaces after the "?" ("really?? 🤔").
const TRAILING = /^[\s"')\]*_\p{Extended_Pictographic}\p{M}\u200d]$/u;

/** Walks back by hand: an end-anchored regex would be retried at every "?" of a long paste. */
function endsWithQuestionMark(text: string): string | undefined {
  let end = text.length;
  for (;;) {
    const width = end >= 2 && /[\udc00-\udfff]/.test(text.charAt(end - 1)) ? 2 : 1;
    const char = text.slice(end - width, end);
    if (char === '' || !TRAILING.test(char)) break;
    end -= width;
  }
  return text.charAt(end - 1) === '?' ? 'a general question (ends with "?")' : undefined;
}
