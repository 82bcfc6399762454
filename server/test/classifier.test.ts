import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readFile } from 'node:fs/promises';
import {
  renderRoutingReport,
  ROUTING_DOC,
  routingReport,
  spliceRoutingReport,
} from '../../scripts/routing-report.ts';
import { type Classification, classifyPrompt, type Route } from '../src/agent/classifier.ts';
import { ISSUE_PROMPTS, ROUTING_PROMPTS } from './fixtures/routing-prompts.ts';
import { withCpuTime } from './helpers/cpu-time.ts';

const ROUTES: Route[] = ['simple_chat', 'direct_answer', 'agent_task'];

// A status line has little room, whatever the prompt held.
const MAX_REASON = 100;

function assertWellFormed(result: Classification): void {
  assert.ok(ROUTES.includes(result.route), `unknown route ${result.route}`);
  assert.ok(result.reason.length > 0, 'a reason is given');
  assert.ok(result.reason.length <= MAX_REASON, `reason too long for a status line: ${result.reason}`);
}

const JS_TRACE = `TypeError: Cannot read properties of undefined (reading 'id')
    at getUser (/app/src/users.js:12:3)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;

const PYTHON_TRACE = `Traceback (most recent call last):
  File "main.py", line 3, in <module>
    run()
ZeroDivisionError: division by zero`;

const RUST_ERROR = `error[E0382]: borrow of moved value: \`v\`
 --> src/main.rs:4:5`;

/** [prompt, expected route, what the reason must say] */
const cases: Array<[string, Route, RegExp]> = [
  // Small talk, in any casing, with punctuation and emoji, up to a few greetings.
  ['', 'simple_chat', /empty prompt/],
  ['  \n\t ', 'simple_chat', /empty prompt/],
  ['hello', 'simple_chat', /greeting or acknowledgement \("hello"\)/],
  ['thanks!', 'simple_chat', /greeting or acknowledgement \("thanks!"\)/],
  ['Hi there', 'simple_chat', /greeting/],
  ['ok', 'simple_chat', /greeting/],
  ['ok thanks!', 'simple_chat', /greeting/],
  ['Thank you so much 🙏', 'simple_chat', /greeting/],
  ['HEYYY!!!', 'simple_chat', /greeting/],
  ['Good morning :)', 'simple_chat', /greeting/],
  ['cool, bye', 'simple_chat', /greeting/],
  ['hi, thanks, bye, cheers', 'simple_chat', /greeting/],
  ['thanks for the help', 'simple_chat', /greeting/],
  ['How are you?', 'simple_chat', /greeting/],
  ['👍', 'simple_chat', /only emoji or punctuation/],
  ['Bonjour !', 'simple_chat', /greeting/],
  ['¡Hola!', 'simple_chat', /greeting/],
  ['Danke schön', 'simple_chat', /greeting/],
  ['привет', 'simple_chat', /greeting/],
  ['こんにちは', 'simple_chat', /greeting/],
  ['谢谢！', 'simple_chat', /greeting/],
  ['안녕하세요', 'simple_chat', /greeting/],

  // General knowledge questions: nothing points at the project.
  ['What is 2+2?', 'direct_answer', /general question \("what is"; arithmetic\)/],
  ['What is a closure in JavaScript?', 'direct_answer', /"what is"/],
  ['Explain the CAP theorem', 'direct_answer', /"explain"/],
  ['difference between TCP and UDP', 'direct_answer', /"difference between"/],
  ['How does git rebase work?', 'direct_answer', /"how does"/],
  ['What are monads?', 'direct_answer', /"what are"/],
  ["What's the difference between merge and rebase?", 'direct_answer', /"what's"/],
  ['Describe the observer pattern', 'direct_answer', /"describe"/],
  ['Tell me about the history of Unix', 'direct_answer', /"tell me"/],
  ['who is Linus Torvalds', 'direct_answer', /"who is"/],
  ['Why is the sky blue?', 'direct_answer', /"why is"/],
  ['Is Rust faster than Go?', 'direct_answer', /ends with "\?"/],
  ['What is Node.js?', 'direct_answer', /"what is"/], // a technology, not a file
  ['What is a linked list?', 'direct_answer', /"what is"/], // "list" is not an order here
  ['Hi! What is a monad?', 'direct_answer', /"what is"/],
  ['Can you explain how TCP handshakes work?', 'direct_answer', /"explain"/],
  ['How does `git rebase` work?', 'direct_answer', /"how does"/], // prose in backticks
  ['TCP/IP vs OSI?', 'direct_answer', /ends with "\?"/], // not a path
  ['How do I install numpy?', 'direct_answer', /"how do"/],

  ['what is a monad?', 'direct_answer', /"is a …"/],
  ['what is memoization?', 'direct_answer', /a concept \("memoization"\)/],
  ['How are sessions stored in Express?', 'direct_answer', /about express/], // a technology as the scope
  ['write a haiku about recursion', 'direct_answer', /creative request/],

  // Anything that may need the repository or tools.
  // Questions about the project, which the old rules answered without tools (see also the table).
  ['why does greet fail with None?', 'agent_task', /describes your situation \("fail"\)/],
  ['How is authentication implemented?', 'agent_task', /may concern your project \("implemented"\)/],
  ['Where is the retry logic?', 'agent_task', /may refer to your project \("the retry"\)/],
  ['Explain how sessions are stored', 'agent_task', /may concern your project \("stored"\)/],
  ['is there a test for the parser?', 'agent_task', /may refer to your project \("the parser"\)/],
  ['How do the approval rules work here?', 'agent_task', /may refer to your project \("the approval"\)/],
  ['How is authentication implemented with JWT?', 'agent_task', /"implemented"/], // "with" is no scope
  ['how is the redis cache invalidated?', 'agent_task', /"the redis"/], // a technology of the project's
  ['what is greet?', 'agent_task', /names nothing general/],
  ['how does it work?', 'agent_task', /may concern your project \("it"\)/],
  ['what does useAuth return?', 'agent_task', /names code \("useAuth"\)/],
  ['what does parse_args return', 'agent_task', /names code \("parse_args"\)/],
  ['is greet() tested anywhere?', 'agent_task', /names code \("greet\(\)"\)/],
  ["i'm getting ECONNREFUSED", 'agent_task', /names code \("ECONNREFUSED"\)/],
  ['write a poem about this repo', 'agent_task', /asks for an action \("write"\)/],
  // Without the conversation, a short question may be about what was just done.
  ['Really?? 🤔', 'agent_task', /names nothing general/],
  ['why?', 'agent_task', /names nothing general/],

  ['Write a fibonacci function', 'agent_task', /asks for an action \("write"\)/],
  ['Fix the bug in auth.ts', 'agent_task', /mentions a file \(auth\.ts\)/],
  ['What does src/index.ts do?', 'agent_task', /mentions a file \(src\/index\.ts\)/],
  ['Explain this function', 'agent_task', /refers to your project \("this function"\)/],
  ['Why does my test fail?', 'agent_task', /refers to your project \("my test"\)/],
  ["What's in package.json?", 'agent_task', /mentions a file \(package\.json\)/],
  [JS_TRACE, 'agent_task', /stack trace or error \("TypeError: Cannot read/],
  [PYTHON_TRACE, 'agent_task', /stack trace or error \("Traceback/],
  [RUST_ERROR, 'agent_task', /stack trace or error \("error\[E0382\]/],
  ['why?\n    at run (file:///srv/app/main.mjs:40:11)', 'agent_task', /stack trace/],
  ['Run the tests', 'agent_task', /asks for an action \("run"\)/],
  ['hello, can you refactor utils.py', 'agent_task', /mentions a file \(utils\.py\)/],
  ['thanks, now run npm test', 'agent_task', /asks for an action \("run"\)/],
  ['ok, fix it', 'agent_task', /asks for an action \("fix"\)/],
  ['Please add tests for the parser', 'agent_task', /asks for an action \("add"\)/],
  ["I'd like to rename the class", 'agent_task', /asks for an action \("rename"\)/],
  ['help me debug the login flow', 'agent_task', /asks for an action \("debug"\)/],
  ['Can you grep for TODO?', 'agent_task', /asks for an action \("grep"\)/],
  ['Explain closures, then write an example', 'agent_task', /asks for an action \("write"\)/],
  ['Implement an LRU cache in Rust', 'agent_task', /asks for an action \("implement"\)/],
  ['Look at src/agent', 'agent_task', /mentions a path \(src\/agent\)/],
  ['Explain what happens in ~/projects/app', 'agent_task', /mentions a path \(~\/projects\/app\)/],
  ['List all *.py files', 'agent_task', /mentions a path \(\*\.py\)/],
  ['Open ./scripts/build.sh', 'agent_task', /mentions a path \(\.\/scripts\/build\.sh\)/],
  ['Explain C:\\Users\\me\\app\\main.py', 'agent_task', /mentions a path \(C:\\Users/],
  ['Check the Makefile', 'agent_task', /mentions a file \(Makefile\)/],
  ['fetch https://example.com/docs', 'agent_task', /mentions a URL \(https:\/\/example\.com\/docs\)/],
  ['What does `useState` do?', 'agent_task', /quotes code \(`useState`\)/],
  ['Why does `foo(bar)` return null?', 'agent_task', /quotes code \(`foo\(bar\)`\)/],
  ['hello\n```js\nconsole.log(1)\n```', 'agent_task', /contains a code block/],
  ['const a = 1;\nconst b = a + 1;\nwhy is b 2?', 'agent_task', /contains pasted code/],
  ['What is wrong in the codebase?', 'agent_task', /refers to your project \("the codebase"\)/],
  ['How is our API structured?', 'agent_task', /refers to your project \("our api"\)/],
  ['Summarize the README', 'agent_task', /refers to your project \("the readme"\)/],
  // Without the conversation, a bare "yes" may be the answer to "shall I apply this?".
  ['yes', 'agent_task', /neither small talk nor a general question/],
  ['go ahead', 'agent_task', /neither small talk nor a general question/],
  [`hello ${'world '.repeat(50)}`, 'agent_task', /neither small talk/],
];

describe('classifyPrompt', () => {
  for (const [prompt, route, reason] of cases) {
    test(`${route}: ${JSON.stringify(prompt).slice(0, 60)}`, () => {
      const result = classifyPrompt(prompt);
      assert.equal(result.route, route, `reason given: ${result.reason}`);
      assert.match(result.reason, reason);
      assertWellFormed(result);
    });
  }

  test('the table is large and covers every route', () => {
    assert.ok(cases.length >= 60);
    for (const route of ROUTES)
      assert.ok(
        cases.some(([, r]) => r === route),
        route,
      );
  });

  test('never throws on malformed text', () => {
    const odd = [
      '\u0000',
      '\ud800',
      'a\udc00?',
      '\u200b\u200b',
      '\r\n\r\n',
      '`',
      '``',
      '?',
      '/',
      '.',
      "'",
      'a:1:2',
    ];
    for (const prompt of odd) assertWellFormed(classifyPrompt(prompt));
  });

  test('keeps reasons short when the evidence is long', () => {
    const long = 'x'.repeat(250);
    for (const prompt of [`fix src/${long}.ts`, `what does \`${long}\` do`, `TypeError: ${long}`]) {
      const result = classifyPrompt(prompt);
      assert.equal(result.route, 'agent_task');
      assertWellFormed(result);
      assert.match(result.reason, /…/);
    }
  });
});

describe('classifyPrompt on 100 KB prompts', () => {
  const size = 100_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  // Each shape targets one rule: a backtracking pattern or a quadratic scan would take minutes.
  const shapes: Array<[string, string, Route]> = [
    ['one long word', fill('a'), 'agent_task'],
    ['backticks', fill('`'), 'agent_task'],
    ['unclosed backtick spans', fill('`a b c '), 'agent_task'],
    ['stack-frame-like lines', fill(`at x${':1'.repeat(400)}x\n`), 'agent_task'],
    ['error-like lines', fill(`${'Error'.repeat(150)}x\n`), 'agent_task'],
    ['slashes and dots', fill('a/b.c/'), 'agent_task'],
    ['many tokens', fill('a/b x.y '), 'agent_task'],
    ['dotted word', fill('e.'), 'agent_task'],
    ['clause boundaries with lead-ins', fill(', please can you '), 'agent_task'],
    ['question marks', fill('?'), 'agent_task'],
    ['question marks before a word', `${fill('?')}x`, 'agent_task'],
    ['trailing spaces after a question', `what${fill(' ')}?${fill(' ')}`, 'agent_task'],
    ['a long question', `What is a ${fill('x')}?`, 'direct_answer'],
    ['many question openers', fill('how does the what is a where '), 'agent_task'],
    ['many camelCase words', fill('getUser fooBar '), 'agent_task'],
    ['many calls', fill('f(x) '), 'agent_task'],
    ['many "the"', fill('the the the '), 'agent_task'],
    ['a long question of words', `${fill('what is a monad ')}?`, 'direct_answer'],
  ];
  for (const [name, prompt, route] of shapes) {
    test(name, async () => {
      const { result, cpuMs } = await withCpuTime(() => classifyPrompt(prompt));
      assert.equal(result.route, route, result.reason);
      assertWellFormed(result);
      // Linear work takes at most 60 ms of CPU here; the bound only catches runaway backtracking
      // or a quadratic scan. CPU time, not wall-clock time: waiting for a core does not count.
      assert.ok(cpuMs < 2000, `${name} took ${Math.round(cpuMs)} ms of CPU time`);
    });
  }
});

describe('the routing table (server/test/fixtures/routing-prompts.ts)', () => {
  const report = routingReport(ROUTING_PROMPTS);

  test('is large, realistic in mix, and holds the questions of the issue', () => {
    assert.ok(ROUTING_PROMPTS.length >= 300, `${ROUTING_PROMPTS.length} prompts`);
    const codeQuestions = ROUTING_PROMPTS.filter((c) => c.category === 'code_question');
    assert.ok(codeQuestions.length >= 100, `${codeQuestions.length} code questions`);
    assert.ok(codeQuestions.length * 3 >= ROUTING_PROMPTS.length, 'a third are questions about code');
    for (const route of ROUTES)
      assert.ok(
        ROUTING_PROMPTS.some((c) => c.route === route),
        route,
      );
    for (const prompt of ISSUE_PROMPTS) {
      assert.deepEqual(
        ROUTING_PROMPTS.filter((c) => c.prompt === prompt).map((c) => c.route),
        ['agent_task'],
        prompt,
      );
    }
    const prompts = ROUTING_PROMPTS.map((c) => c.prompt);
    assert.deepEqual(
      prompts.filter((p, i) => prompts.indexOf(p) !== i),
      [],
      'no prompt twice',
    );
  });

  test('no prompt labelled agent_task goes to a route without tools', () => {
    const leaks = report.toolless.map((c) => `${JSON.stringify(c.prompt)} -> ${c.got} (${c.reason})`);
    assert.deepEqual(leaks, []);
  });

  test('the questions of the issue go to the agent', () => {
    for (const prompt of ISSUE_PROMPTS) {
      const result = classifyPrompt(prompt);
      assert.equal(result.route, 'agent_task', `${prompt}: ${result.reason}`);
    }
  });

  test('accuracy is at least 95%', () => {
    const misses = report.cases
      .filter((c) => c.got !== c.route)
      .map((c) => `${c.route} -> ${c.got}: ${JSON.stringify(c.prompt).slice(0, 80)}`);
    const accuracy = report.correct / report.cases.length;
    assert.ok(accuracy >= 0.95, `accuracy ${(accuracy * 100).toFixed(1)}%; misrouted:\n${misses.join('\n')}`);
  });

  test('every reason fits a status line', () => {
    for (const c of report.cases) assertWellFormed({ route: c.got, reason: c.reason });
  });

  test('docs/routing.md shows the current numbers (run `npm run routing:report` if this fails)', async () => {
    const doc = await readFile(ROUTING_DOC, 'utf8');
    const updated = spliceRoutingReport(doc, renderRoutingReport(report));
    assert.notEqual(updated, undefined, 'docs/routing.md has the generated-block markers');
    assert.ok(updated === doc, 'the generated block of docs/routing.md is stale');
  });
});
