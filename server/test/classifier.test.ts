import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Classification, classifyPrompt, type Route } from '../src/agent/classifier.ts';

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
  ['What is 2+2?', 'direct_answer', /general question \("what is"\)/],
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
  ['Really?? 🤔', 'direct_answer', /ends with "\?"/],
  ['What is Node.js?', 'direct_answer', /"what is"/], // a technology, not a file
  ['What is a linked list?', 'direct_answer', /"what is"/], // "list" is not an order here
  ['Hi! What is a monad?', 'direct_answer', /"what is"/],
  ['Can you explain how TCP handshakes work?', 'direct_answer', /"explain"/],
  ['How does `git rebase` work?', 'direct_answer', /"how does"/], // prose in backticks
  ['TCP/IP vs OSI?', 'direct_answer', /ends with "\?"/], // not a path
  ['How do I install numpy?', 'direct_answer', /"how do"/],

  // Anything that may need the repository or tools.
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
    ['question marks', fill('?'), 'direct_answer'],
    ['question marks before a word', `${fill('?')}x`, 'agent_task'],
    ['trailing spaces after a question', `what${fill(' ')}?${fill(' ')}`, 'direct_answer'],
    ['a long question', `What is ${fill('x')}?`, 'direct_answer'],
  ];
  for (const [name, prompt, route] of shapes) {
    test(name, () => {
      const started = performance.now();
      const result = classifyPrompt(prompt);
      const elapsed = performance.now() - started;
      assert.equal(result.route, route, result.reason);
      assertWellFormed(result);
      // Linear work takes milliseconds; the bound only catches runaway backtracking.
      assert.ok(elapsed < 2000, `${name} took ${Math.round(elapsed)} ms`);
    });
  }
});
