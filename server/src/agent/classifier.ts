/**
 * Routes a prompt before any model call, by rules a reader can check: small talk gets one plain model
 * call (`simple_chat`), a general knowledge question that clearly does not concern the user's project
 * gets one plain model call (`direct_answer`), and everything else goes to the agent loop with its
 * tools (`agent_task`).
 *
 * Why questions about the project go to the agent. A question about this project must never be
 * answered by a model that cannot look at it: "Where is the retry logic?" or "How is authentication
 * implemented?" answered without tools is a confident guess about the user's own code, the failure
 * users report most about coding assistants. Two fixes were possible: give `direct_answer` read-only
 * tools (read, grep, find, list), or send such questions to the agent. We send them to the agent:
 * it already reads, searches and lists, with the workspace note, the project's instructions and
 * sub-agents for large questions; a tool-using direct route would be a second, weaker agent with its
 * own prompt to keep in step, and would still depend on this classifier deciding "may concern the
 * project". So `direct_answer` stays tool-less and is kept for what no file can change (what is a
 * monad, how do I reverse a list in Python), and the agent answers the rest.
 *
 * When in doubt, the agent. A wrong `agent_task` costs a few tool calls the model may skip; a wrong
 * `direct_answer` misleads the user about their own code. So `direct_answer` needs positive
 * evidence of a general question (a named technology in scope, "a/an", a concept, a comparison, a
 * definition) and no sign of the project; a question that names nothing general ("what is
 * greet?", "why?") is `agent_task`. The labelled table in server/test/fixtures/routing-prompts.ts
 * measures this (docs/routing.md has the numbers); its test allows no project prompt on a tool-less
 * route. A client can always override: `mode` or `agent` in `prompt`, `--agent` on `santra -p`.
 *
 * Every check is a single pass over the text or over short tokens (long tokens and lines are
 * skipped) with bounded look-ahead, so a 100 KB paste is classified in linear time.
 */

import {
  GREETINGS,
  GREETING_COMPANIONS,
  MAX_GREETING_CHARS,
  ACTION_VERBS,
  LEAD_INS,
  QUESTION_OPENERS,
  CONTEXT_WORDS,
  PROJECT_NOUNS,
  TROUBLE_WORDS,
  TROUBLE_PHRASES,
  HINT_WORDS,
  PARTICIPLES,
  AUXILIARIES,
  PRONOUNS,
  BEHAVIOUR_VERBS,
  PART_NOUNS,
  TECHNOLOGIES,
  SCOPE_ONLY_TECHNOLOGIES,
  SCOPE_WORDS,
  OWNING_WORDS,
  NEUTRAL_AFTER_THE,
  NAMED_HEADS,
  RELATIONAL_HEADS,
  WORLD_NOUNS,
  DEFINITION_WORDS,
  FACT_OPENERS,
  CONCEPT_SUFFIX,
  CREATIVE_OPENERS,
  CREATIVE_NOUNS,
  CODE_EXTENSIONS,
  TECH_NAMES,
  KNOWN_FILES,
  KNOWN_DIRS,
  TRACE_LINES,
  ERROR_CODES,
  CODE_LINE_ENDINGS,
  CODE_LINE_STARTS,
  CODE_LINES_NEEDED,
  MAX_TOKEN,
  MAX_LINE,
  MAX_SNIPPET,
} from './classifier-rules.ts';

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
  const agent = (reason: string): Classification => ({ route: 'agent_task', reason });
  const evidence = text.includes('```')
    ? 'contains a code block'
    : (traceOrCode(text) ?? fileMention(text) ?? inlineCode(text));
  if (evidence !== undefined) return agent(evidence);
  const signals = readSignals(text);
  // "write a haiku about recursion" is an order, but not one about the project.
  if (signals.creative !== undefined && signals.project === undefined && signals.hint === undefined) {
    return { route: 'direct_answer', reason: signals.creative };
  }
  const project = signals.action ?? signals.project;
  if (project !== undefined) return agent(project);
  const question = signals.question ?? (endsWithQuestionMark(text) ? 'ends with "?"' : undefined);
  if (question === undefined) {
    return agent('neither small talk nor a general question, so it may need the project');
  }
  // A hint of the project decides, unless a technology is named as the question's scope.
  if (signals.hint !== undefined && signals.scope === undefined) {
    return agent(`may concern your project (${signals.hint})`);
  }
  const general = signals.scope ?? signals.general;
  if (general === undefined)
    return agent('a question that names nothing general: it may be about your project');
  return { route: 'direct_answer', reason: `a general question (${question}; ${general})` };
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
  let previous = '';
  for (const raw of text.split(/\s+/)) {
    const article = previous === 'a' || previous === 'an';
    previous = raw.toLowerCase();
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
    // "a Dockerfile" is any Dockerfile, not the project's.
    if (kind === 'file' && article && KNOWN_FILES.has(token.toLowerCase())) continue;
    if (kind !== undefined) return `mentions a ${kind} (${clip(token)})`;
  }
  return undefined;
}

function pathKind(token: string): 'file' | 'path' | 'URL' | undefined {
  if (!/\p{L}/u.test(token)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\/\S/i.test(token)) return 'URL';
  const lower = token.toLowerCase();
  if (KNOWN_FILES.has(lower)) return 'file';
  // Dotfiles with a suffix: .env.example, .eslintrc.cjs (".NET" is a platform).
  if (/^\.[a-z][\w-]*\.[\w.-]+$/i.test(token) || (/^\.[a-z][\w-]*rc$/i.test(token) && lower !== '.net'))
    return 'file';
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

/** What the words of a prompt say; each field holds the first piece of evidence found, as a reason. */
interface Signals {
  /** The prompt concerns the project or the user's situation: `agent_task`. */
  project?: string;
  /** A clause opens with an order ("fix", "run"): `agent_task`. */
  action?: string;
  /** A creative request with nothing of the project in it. */
  creative?: string;
  /** The opener of a question ("what is"). */
  question?: string;
  /** A hint of the project that a technology named as the question's scope outweighs. */
  hint?: string;
  /** A technology named as the question's scope ("… in Python?"). */
  scope?: string;
  /** Evidence that a question is general: a technology, "a/an", a concept, a comparison. */
  general?: string;
}

const TROUBLE_PHRASE_LIST = phrases(TROUBLE_PHRASES);
const FACT_PHRASES = phrases(FACT_OPENERS);
const CREATIVE_PHRASES = phrases(CREATIVE_OPENERS);
const CONCEPT_OPENERS = phrases([
  'what is',
  'what are',
  "what's",
  'whats',
  'explain',
  'describe',
  'define',
  'tell me about',
  'eli5',
]);
const ARTICLES = new Set(['a', 'an']);
/** Words before "a/an" that make the noun phrase any one of its kind. */
const ARTICLE_BEFORE = new Set([
  'is', 'are', 'does', 'do', 'in', 'for', 'of', 'like', 'between', 'about', 'me', 'explain',
  'describe', 'define', "what's", 'whats', 'eli5',
]); // prettier-ignore
/** How far a phrase check looks ahead: short, so every check is bounded. */
const LOOKAHEAD = 12;

const isTechnology = (word: string): boolean => TECHNOLOGIES.has(word);
const isBoundary = (word: string | undefined): boolean => word === undefined || word === BOUNDARY;

/**
 * Reads every word once, with look-ahead bounded by LOOKAHEAD: references to the project, orders,
 * question openers, hints of the project and evidence of a general question.
 */
function readSignals(text: string): Signals {
  const signals: Signals = identifierSignals(text);
  const tokens = clauseTokens(text);
  let auxiliary = false;
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i] ?? '';
    const previous = tokens[i - 1] ?? BOUNDARY;
    const next = tokens[i + 1] ?? BOUNDARY;
    if (word === BOUNDARY) {
      auxiliary = false;
      clauseStart(tokens, i + 1, signals);
      continue;
    }
    if (CONTEXT_WORDS.has(word)) {
      signals.project ??= `refers to your project (${quote(isBoundary(next) ? word : `${word} ${next}`)})`;
    }
    if (
      (TROUBLE_WORDS.has(word) && !(word === 'getting' && next === 'started')) ||
      (word === 'line' && /^\d+$/.test(next))
    ) {
      signals.project ??= `describes your situation (${quote(word === 'line' ? `line ${next}` : word)})`;
    }
    const trouble = TROUBLE_PHRASE_LIST.find((phrase) => startsWith(tokens, i, phrase));
    if (trouble !== undefined) signals.project ??= `describes your situation (${quote(trouble.join(' '))})`;
    if (word === 'the') theSignals(tokens, i, signals);
    if ((word === 'which' || word === 'what' || word === 'any') && PART_NOUNS.has(next)) {
      signals.hint ??= quote(`${word} ${next}`);
    }
    if (HINT_WORDS.has(word)) signals.hint ??= quote(word);
    if (AUXILIARIES.has(word)) auxiliary = true;
    else if (auxiliary && PARTICIPLES.has(word)) signals.hint ??= quote(word);
    if (word === 'how') howWorks(tokens, i, signals);
    if (isTechnology(word) || SCOPE_ONLY_TECHNOLOGIES.has(word)) {
      const after = tokens[i + 2];
      const scoped =
        SCOPE_WORDS.has(previous) &&
        (isBoundary(next) || ((isTechnology(next) || /^\d[\d.x]*$/.test(next)) && isBoundary(after)));
      if (scoped) signals.scope ??= `about ${word}`;
      else if (isTechnology(word) && !OWNING_WORDS.has(previous)) signals.general ??= `names ${word}`;
    }
    // "what is a monad?", "bytes in a kilobyte": any one, not the project's ("add a provider" is not).
    if (ARTICLES.has(word) && ARTICLE_BEFORE.has(previous))
      signals.general ??= quote(`${previous} ${word} …`);
    if (DEFINITION_WORDS.has(word))
      signals.general ??= `asks for a definition or comparison (${quote(word)})`;
    if (word === 'in' && (next === 'general' || next === 'theory')) signals.general ??= quote(`in ${next}`);
  }
  if (text.length <= MAX_GREETING_CHARS && /\d\s{0,3}[-+*/^%]\s{0,3}\d/.test(text))
    signals.general ??= 'arithmetic';
  return signals;
}

/** At the start of a clause, past lead-ins like "please can you": an order, an opener, a subject. */
function clauseStart(tokens: string[], start: number, signals: Signals): void {
  let at = start;
  while (LEAD_INS.has(tokens[at] ?? '') || GREETING_WORDS.has(tokens[at] ?? '')) at++;
  const opening = tokens[at] ?? '';
  const creative = CREATIVE_PHRASES.find((phrase) => startsWith(tokens, at, phrase));
  if (creative !== undefined && CREATIVE_NOUNS.has(tokens[at + creative.length] ?? '')) {
    signals.creative ??= `a creative request (${quote(`${creative.join(' ')} ${tokens[at + creative.length]}`)})`;
  }
  if (ACTION_VERBS.has(opening)) signals.action ??= `asks for an action (${quote(opening)})`;
  const opener = OPENER_PHRASES.find((phrase) => startsWith(tokens, at, phrase));
  if (opener !== undefined) signals.question ??= quote(opener.join(' '));
  if (opening === 'where') signals.hint ??= '"where"';
  if ((opening === 'is' || opening === 'are') && tokens[at + 1] === 'there')
    signals.hint ??= quote(`${opening} there`);
  // A pronoun as the subject stands for something from the conversation ("how does it work?").
  for (let k = at; k < at + 3 && !isBoundary(tokens[k]); k++) {
    if (PRONOUNS.has(tokens[k] ?? '')) signals.hint ??= quote(tokens[k] ?? '');
  }
  // "what does greet return?" asks about one particular thing.
  if (opening === 'what' && ['does', 'do', 'did'].includes(tokens[at + 1] ?? '')) {
    let end = at + 2;
    while (end < at + LOOKAHEAD && !isBoundary(tokens[end])) end++;
    const last = tokens[end - 1] ?? '';
    if (
      isBoundary(tokens[end]) &&
      end - 1 > at + 2 &&
      BEHAVIOUR_VERBS.has(last) &&
      !ARTICLES.has(tokens[at + 2] ?? '')
    ) {
      signals.hint ??= quote(`what ${tokens[at + 1]} … ${last}`);
    }
  }
  if (FACT_PHRASES.some((phrase) => startsWith(tokens, at, phrase))) signals.general ??= 'a question of fact';
  // "what is memoization?": a short subject that names a concept, not a function.
  const concept = CONCEPT_OPENERS.find((phrase) => startsWith(tokens, at, phrase));
  if (concept !== undefined) {
    let from = at + concept.length;
    if (ARTICLES.has(tokens[from] ?? '')) from++;
    let end = from;
    while (end < from + 4 && !isBoundary(tokens[end])) end++;
    const last = tokens[end - 1] ?? '';
    const subject = tokens.slice(from, end);
    // A bare plural is a kind of thing only in "what are monads?"; "explain sessions" may be ours.
    const plural = concept[0] === 'what' && concept[1] === 'are' && /[^s]s$/.test(last) && last.length > 3;
    const conceptual = CONCEPT_SUFFIX.test(last) || plural;
    if (
      isBoundary(tokens[end]) &&
      end > from &&
      conceptual &&
      !['how', 'what', 'why', 'the', 'where'].includes(subject[0] ?? '')
    ) {
      signals.general ??= `a concept (${quote(subject.join(' '))})`;
    }
  }
}

/**
 * "the X": the project's own thing ("the parser", "the redis cache") unless X is neutral ("the
 * best way"), a named or relational general head ("the CAP theorem", "the history of") or a
 * technology on its own ("the regex for").
 */
function theSignals(tokens: string[], at: number, signals: Signals): void {
  const first = tokens[at + 1] ?? BOUNDARY;
  if (isBoundary(first)) return;
  for (let k = at + 1; k <= at + 3 && !isBoundary(tokens[k]); k++) {
    const word = tokens[k] ?? '';
    const following = tokens[k + 1] ?? BOUNDARY;
    if (
      (NAMED_HEADS.has(word) && k > at + 1) ||
      (RELATIONAL_HEADS.has(word) && ['of', 'between', 'in', 'to', 'for', 'and'].includes(following)) ||
      WORLD_NOUNS.has(word)
    ) {
      signals.general ??= `a general subject (${quote(tokens.slice(at, k + 1).join(' '))})`;
      return;
    }
  }
  if (PROJECT_NOUNS.has(first)) {
    signals.project ??= `refers to your project (${quote(`the ${first}`)})`;
    return;
  }
  if (NEUTRAL_AFTER_THE.has(first)) return;
  const second = tokens[at + 2] ?? BOUNDARY;
  if (
    (isTechnology(first) || SCOPE_ONLY_TECHNOLOGIES.has(first)) &&
    (isBoundary(second) || SCOPE_WORDS.has(second))
  )
    return;
  signals.project ??= `may refer to your project (${quote(`the ${first}`)})`;
}

/** "how does caching work?": a mechanism with no technology named, so perhaps the project's own. */
function howWorks(tokens: string[], at: number, signals: Signals): void {
  let from = at + 1;
  if (['does', 'do', 'did'].includes(tokens[from] ?? '')) from++;
  let end = from;
  while (end < from + LOOKAHEAD && !isBoundary(tokens[end])) end++;
  const last = tokens[end - 1] ?? '';
  if (!isBoundary(tokens[end]) || end - 1 <= from || !['work', 'works', 'working'].includes(last)) return;
  const subject = tokens.slice(from, end - 1);
  if (subject.some((word) => isTechnology(word)) || ['a', 'an', 'i', 'you'].includes(subject[0] ?? ''))
    return;
  signals.hint ??= quote(`how ${subject.join(' ')} work`);
}

/** Words in code style, read with their case: `parse_args`, `greet()`, `useAuth`, `SessionStore`, ENOENT. */
function identifierSignals(text: string): Signals {
  const signals: Signals = {};
  for (const raw of text.split(/\s+/)) {
    if (raw.length > MAX_TOKEN) continue;
    if (/^[\p{L}_$][\w$.]*\([^()]*\)/u.test(raw)) {
      signals.project ??= `names code (${quote(raw.replace(/[.,;:!?]+$/, ''))})`;
      return signals;
    }
  }
  for (const [word] of text.matchAll(/[\p{L}\p{N}_$]+/gu)) {
    if (word.length > MAX_TOKEN) continue;
    if ((/_/.test(word) && /\p{L}/u.test(word)) || ERROR_CODES.test(word)) {
      signals.project ??= `names code (${quote(word)})`;
      return signals;
    }
    if (
      (/^[a-z][a-z0-9]+[A-Z][A-Za-z0-9]*$/.test(word) || /^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$/.test(word)) &&
      !TECHNOLOGIES.has(word.toLowerCase())
    ) {
      signals.hint ??= `names code (${quote(word)})`;
    }
  }
  return signals;
}

// Trailing emoji, quotes, markup and spaces after the "?" ("really?? 🤔").
const TRAILING = /^[\s"')\]*_\p{Extended_Pictographic}\p{M}\u200d]$/u;

/** Walks back by hand: an end-anchored regex would be retried at every "?" of a long paste. */
function endsWithQuestionMark(text: string): boolean {
  let end = text.length;
  for (;;) {
    const width = end >= 2 && /[\udc00-\udfff]/.test(text.charAt(end - 1)) ? 2 : 1;
    const char = text.slice(end - width, end);
    if (char === '' || !TRAILING.test(char)) break;
    end -= width;
  }
  return text.charAt(end - 1) === '?';
}
