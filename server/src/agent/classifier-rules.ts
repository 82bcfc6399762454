/**
 * The router's word lists and limits (classifier.ts applies them): what makes a prompt small talk,
 * a general question, or one about the user's project. Data only; the reasons for the rules are in
 * classifier.ts.
 */
// ---------------------------------------------------------------------------------------------
// Rules. Words are matched lower-cased, after Unicode normalisation (NFKD, combining marks
// removed), so "Adiós" matches "adios". Phrases are words separated by one space.
// ---------------------------------------------------------------------------------------------

/** Greetings and acknowledgements that make up a whole `simple_chat` prompt, in any language. */
export const GREETINGS = [
  'hello', 'hi', 'hey', 'heya', 'hiya', 'howdy', 'yo', 'sup', 'greetings', 'good morning',
  'good afternoon', 'good evening', 'good night', 'morning', 'evening', 'gm', 'thanks', 'thank you',
  'thank u', 'thx', 'ty', 'tysm', 'tyvm', 'cheers', 'ok', 'okay', 'okey', 'k', 'kk', 'alright',
  'all right', 'cool', 'great', 'nice', 'awesome', 'perfect', 'got it', 'gotcha', 'understood',
  'noted', 'bye', 'goodbye', 'good bye', 'bye bye', 'see you', 'see ya', 'cya', 'later', 'lol',
  'haha', 'wow', 'how are you', "how's it going", "what's up", 'whats up', 'wassup',
  "you're welcome", 'no problem', 'np', 'good job', 'great job', 'nice work', 'well done',
  'who are you', 'what can you do', 'what is your name', "what's your name",
  'are you there', 'you there',
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
export const GREETING_COMPANIONS = new Set([
  'there', 'again', 'so', 'much', 'very', 'a', 'lot', 'all', 'everyone', 'guys', 'folks', 'friend',
  'buddy', 'mate', 'man', 'santra', 'bot', 'for', 'the', 'help', 'and', 'too', 'you', 'then', 'doing',
  'today', 'that', 'it', 'worked', 'works', 'helped', 'looks', 'good',
]); // prettier-ignore

/** Small talk is short; longer prompts skip the greeting check (which also bounds its cost). */
export const MAX_GREETING_CHARS = 200;

/**
 * Verbs that, opening a clause, ask Santra to do something (in the project, so with tools).
 * "explain" and "describe" are not here: they ask for knowledge.
 */
export const ACTION_VERBS = new Set([
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
export const LEAD_INS = new Set([
  'please', 'pls', 'plz', 'kindly', 'can', 'could', 'would', 'will', 'you', 'u', 'now', 'then',
  'also', 'just', 'go', 'ahead', 'and', 'so', 'i', "i'd", 'want', 'need', 'like', 'to', 'help',
  'me', "let's", 'lets', 'let', 'us', 'try', 'quickly', 'first', 'next', 'finally', 'santra',
]); // prettier-ignore

/**
 * Openings of a question. A question is `direct_answer` only with evidence that it is general and no
 * sign of the project; the opener alone proves nothing ("How is authentication implemented?").
 */
export const QUESTION_OPENERS = [
  'what is', 'what are', "what's", 'whats', 'what was', 'what were', 'what does', 'what do',
  'explain', 'describe', 'define', 'tell me', 'difference between', 'compare', 'how does', 'how do',
  'how is', 'how can', 'how to', 'how would', 'how should', 'how many', 'how much', 'how are',
  'why does', 'why do', 'why is', 'why are', 'why was', 'who is', 'who was', 'who invented',
  'who created', 'when was', 'when did', 'which is', 'is there', 'are there', 'eli5', 'where',
  'what happens',
]; // prettier-ignore

/**
 * Words that always point at something the user has in front of them ("this function", "how do
 * we…", "…work here?").
 */
export const CONTEXT_WORDS = new Set([
  'this', 'these', 'my', 'our', 'ours', 'here', 'we', "we're", "we've", 'currently', 'existing',
]); // prettier-ignore

/** Nouns that, right after "the", name the user's project ("run the tests", "in the repo"). */
export const PROJECT_NOUNS = new Set([
  'repo', 'repository', 'project', 'codebase', 'code', 'tests', 'test', 'build', 'workspace',
  'branch', 'diff', 'commit', 'error', 'errors', 'bug', 'bugs', 'logs', 'output', 'readme', 'app',
  'api', 'server', 'client', 'frontend', 'backend', 'database', 'db', 'cli', 'ui', 'config',
  'docs', 'pipeline', 'ci', 'migrations', 'schema', 'env', 'container', 'service', 'services',
  'website', 'site', 'script', 'scripts', 'file', 'files', 'folder', 'directory', 'function',
  'class', 'module', 'package', 'dependencies', 'deps', 'endpoint', 'endpoints',
]); // prettier-ignore

/** Words that describe the user's situation: a failure, or what they see ("I'm getting …"). */
export const TROUBLE_WORDS = new Set([
  'fail', 'fails', 'failing', 'failed', 'crash', 'crashes', 'crashing', 'crashed', 'broken',
  'breaks', 'hangs', 'hanging', 'freezes', 'frozen', 'flaky', 'throws', 'throwing', 'threw', 'raises',
  'raising', 'segfault', 'segfaults', 'panics', 'panicking', 'getting', 'seeing', 'keeps', 'anymore',
  'stuck', 'regression',
]); // prettier-ignore

/** Two-word phrases that describe a failure or the user's own actions. */
export const TROUBLE_PHRASES = [
  "doesn't work", 'does not work', "isn't working", 'not working', 'stopped working', "won't start",
  'times out', 'timed out', 'timing out', 'i ran', 'i tried', 'i changed', 'when i', 'after i',
  'i keep', 'returns undefined', 'returns null', 'returns none', 'returns nan', 'return undefined',
  'return null', 'return none', 'return nan', 'returning undefined', 'returning null',
  'returning none',
]; // prettier-ignore

/**
 * Words that hint at the project without proving it (a mechanism, "anywhere", "still"). A question
 * holding one is `agent_task` unless a technology is named as its scope ("… in Rust").
 */
export const HINT_WORDS = new Set([
  'handling', 'logic', 'flow', 'flows', 'setup', 'architecture', 'layout',
  'implementation', 'pipeline', 'wiring', 'workflow', 'configuration', 'anything', 'anywhere',
  'somewhere', 'everywhere', 'still',
]); // prettier-ignore

/**
 * Past participles that, after "is/are/get", ask how something is done in a particular system
 * ("How is authentication implemented?", "Explain how sessions are stored").
 */
export const PARTICIPLES = new Set([
  'implemented', 'stored', 'handled', 'defined', 'configured', 'computed', 'calculated',
  'validated', 'parsed', 'loaded', 'saved', 'persisted', 'initialized', 'initialised', 'registered',
  'triggered', 'generated', 'built', 'structured', 'organized', 'organised', 'managed', 'cached',
  'serialized', 'rendered', 'routed', 'wired', 'enforced', 'checked', 'invalidated', 'hashed',
  'salted', 'encrypted', 'authenticated', 'authorized', 'propagated', 'evaluated', 'scheduled',
  'formatted', 'counted', 'updated', 'created', 'deleted', 'sent', 'written', 'logged', 'tested',
  'deployed', 'called', 'used', 'invoked', 'exported', 'imported', 'declared', 'located', 'kept',
  'done', 'passed', 'set', 'read', 'handed', 'named', 'versioned', 'limited', 'applied', 'mapped',
]); // prettier-ignore
export const AUXILIARIES = new Set(['is', 'are', 'was', 'were', 'be', 'been', 'being', 'get', 'gets', 'got']);

/** Pronouns that, as the subject of a question, stand for something from the conversation. */
export const PRONOUNS = new Set(['it', 'that', 'they', 'those', 'them', 'he', 'she']);

/** Last words of "what does X …?" that ask what a particular thing does ("what does greet return?"). */
export const BEHAVIOUR_VERBS = new Set([
  'do', 'does', 'return', 'returns', 'run', 'contain', 'print', 'output', 'produce', 'need',
  'use', 'call', 'expect', 'accept', 'log', 'say', 'check',
]); // prettier-ignore

/** Nouns that, after "which/what/any", ask about parts of the project ("which file…", "any tests?"). */
export const PART_NOUNS = new Set([
  'file', 'files', 'function', 'functions', 'class', 'classes', 'module', 'modules', 'endpoint',
  'endpoints', 'test', 'tests', 'route', 'routes', 'component', 'components', 'service',
  'services', 'table', 'tables', 'method', 'methods', 'script', 'scripts', 'handler', 'handlers',
  'dependencies', 'folder', 'folders', 'directory', 'directories', 'line', 'lines',
]); // prettier-ignore

/**
 * Technologies, languages and tools. Named as a question's scope ("… in Python?", "… for
 * PostgreSQL?") they make it general; named anywhere else they count as a hint of generality.
 * Words that are also common English ("rest", "express") are left out, or only count as a scope.
 */
export const TECHNOLOGIES = new Set([
  'python', 'javascript', 'js', 'typescript', 'java', 'kotlin', 'scala', 'swift', 'c++', 'csharp',
  'c#', 'go', 'golang', 'rust', 'ruby', 'php', 'perl', 'lua', 'haskell', 'elixir', 'erlang',
  'clojure', 'ocaml', 'dart', 'julia', 'zig', 'sql', 'nosql', 'bash', 'zsh', 'powershell', 'css',
  'html', 'wasm', 'webassembly', 'cobol', 'fortran', 'matlab', 'solidity', 'node', 'node.js',
  'nodejs', 'deno', 'bun', 'react', 'vue', 'angular', 'svelte', 'next.js', 'nextjs', 'nuxt',
  'django', 'flask', 'fastapi', 'rails', 'laravel', 'spring', 'nestjs', 'jquery', 'redux',
  'graphql', 'grpc', 'jest', 'pytest', 'mocha', 'vitest', 'junit', 'webpack', 'vite', 'babel',
  'eslint', 'prettier', 'npm', 'yarn', 'pnpm', 'pip', 'poetry', 'cargo', 'maven', 'gradle', 'git',
  'github', 'gitlab', 'docker', 'kubernetes', 'k8s', 'helm', 'terraform', 'ansible', 'linux',
  'unix', 'windows', 'macos', 'ubuntu', 'debian', 'postgres', 'postgresql', 'mysql', 'sqlite',
  'redis', 'mongodb', 'mongo', 'kafka', 'rabbitmq', 'elasticsearch', 'nginx', 'aws', 's3', 'gcp',
  'azure', 'http', 'https', 'http2', 'tcp', 'udp', 'ip', 'dns', 'tls', 'ssl', 'ssh', 'oauth',
  'oauth2', 'jwt', 'cors', 'websocket', 'websockets', 'json', 'yaml', 'toml', 'xml', 'csv', 'regex',
  'unicode', 'utf-8', 'ascii', 'numpy', 'pandas', 'pytorch', 'tensorflow', 'vim', 'neovim', 'emacs',
  'vscode', 'curl', 'grep', 'sed', 'awk', 'jq', 'tmux', 'cron', 'systemd', 'raft', 'paxos', 'osi',
  'llvm', 'gcc', 'clang', 'jvm', 'cpython', 'v8', 'openai', 'llm', 'llms', 'virtualenv', 'venv',
  'conda', 'homebrew', 'brew', 'apt', 'youtube', 'linkedin', 'devops', 'intellij', 'jetbrains',
  'wordpress', 'dynamodb', 'cloudflare', 'circleci', 'chatgpt', 'openapi', 'ipython', 'jupyter',
]); // prettier-ignore
/** One-letter or common words that name a language only as a scope ("in C", "in R", "in Express"). */
export const SCOPE_ONLY_TECHNOLOGIES = new Set(['c', 'r', 'express', 'rest', 'ts', 'lambda']);
/** Words before a technology that make it the scope of the question. */
export const SCOPE_WORDS = new Set([
  'in',
  'for',
  'on',
  'of',
  'en',
  'em',
  'using',
  'under',
  'between',
  'vs',
  'than',
]);
/** Words before a technology that make it a particular one of the user's ("the redis cache"). */
export const OWNING_WORDS = new Set(['the', 'this', 'that', 'my', 'our', 'your', 'their']);

/** Words after "the" that say nothing about the project ("the best way", "the last commit"). */
export const NEUTRAL_AFTER_THE = new Set([
  'same', 'first', 'last', 'latest', 'best', 'most', 'fastest', 'easiest', 'simplest', 'right',
  'correct', 'proper', 'idiomatic', 'standard', 'recommended', 'usual', 'typical', 'common', 'main',
  'other', 'next', 'previous', 'whole', 'general', 'basic', 'key', 'real', 'actual', 'official',
]); // prettier-ignore
/** Heads of general noun phrases after "the": named ones ("the CAP theorem") need a name before them. */
export const NAMED_HEADS = new Set([
  'theorem', 'pattern', 'patterns', 'principle', 'principles', 'law', 'laws', 'algorithm',
  'paradigm', 'language', 'problem', 'fallacy', 'conjecture', 'notation',
]); // prettier-ignore
/** Relational heads ("the difference between", "the history of") need a preposition after them. */
export const RELATIONAL_HEADS = new Set([
  'difference', 'differences', 'history', 'meaning', 'definition', 'origin', 'origins', 'pros',
  'advantages', 'disadvantages', 'benefits', 'tradeoffs', 'trade-offs', 'complexity', 'purpose',
  'point', 'way', 'ways', 'inventor', 'creator', 'author', 'capital', 'population', 'speed', 'size',
]); // prettier-ignore
/** Things of the world, general whatever follows ("Why is the sky blue?"). */
export const WORLD_NOUNS = new Set([
  'sky',
  'sun',
  'moon',
  'earth',
  'world',
  'universe',
  'ocean',
  'internet',
  'web',
]);

/** Words that ask for a definition or a comparison: general when nothing points at the project. */
export const DEFINITION_WORDS = new Set([
  'mean', 'means', 'meaning', 'stand', 'stands', 'define', 'definition', 'vs', 'versus',
  'difference', 'differences', 'compare', 'compared', 'pros', 'cons', 'eli5', 'generally',
]); // prettier-ignore

/** Openers of questions about people and dates ("who invented C?"): general when nothing else points home. */
export const FACT_OPENERS = [
  'who is',
  'who was',
  'who invented',
  'who created',
  'who founded',
  'when was',
  'when did',
];

/** Endings of a single word that names a concept rather than a function ("memoization", "currying"). */
export const CONCEPT_SUFFIX = /(?:tion|sion|ism|ity|ness|ment|ance|ence|ics|ogy|phy|ing|ure|cy)$/;

/** Creative requests with no project in them ("write a haiku about recursion"). */
export const CREATIVE_OPENERS = ['write a', 'write an', 'write me a', 'compose a', 'tell me a', 'tell me an'];
export const CREATIVE_NOUNS = new Set([
  'poem', 'haiku', 'limerick', 'joke', 'story', 'song', 'essay', 'riddle', 'sonnet', 'tweet', 'fun',
]); // prettier-ignore

/** Extensions that make `name.ext` a file name. One-letter ones other than c and h are too ambiguous. */
export const CODE_EXTENSIONS = new Set([
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
export const TECH_NAMES = new Set([
  'node.js', 'vue.js', 'next.js', 'nuxt.js', 'react.js', 'express.js', 'nest.js', 'd3.js',
  'three.js', 'chart.js', 'ember.js', 'backbone.js', 'angular.js', 'solid.js', 'alpine.js', 'p5.js',
  'knockout.js', 'meteor.js', 'tensorflow.js', 'pixi.js', 'babylon.js', 'phaser.js', 'brain.js',
]); // prettier-ignore

/** File names without an extension, and dotfiles, that are always files. */
export const KNOWN_FILES = new Set([
  'makefile', 'dockerfile', 'containerfile', 'gemfile', 'rakefile', 'procfile', 'jenkinsfile',
  'vagrantfile', 'justfile', 'codeowners', '.env', '.gitignore', '.gitattributes', '.npmrc',
  '.nvmrc', '.editorconfig', '.prettierrc', '.eslintrc', '.babelrc', '.dockerignore', '.bashrc',
  '.zshrc', '.profile', '.vimrc', '.github', '.vscode',
]); // prettier-ignore

/** First directories of a relative path like `src/auth`; "TCP/IP" or "client/server" are not paths. */
export const KNOWN_DIRS = new Set([
  'src', 'lib', 'test', 'tests', 'spec', 'app', 'docs', 'bin', 'scripts', 'packages', 'dist',
  'config', 'public', 'assets', 'components', 'pages', 'cmd', 'internal', 'pkg', 'node_modules',
  'vendor', 'server', 'tui',
]); // prettier-ignore

/** Lines of a pasted stack trace or error report (each tested on one trimmed line). */
export const TRACE_LINES: RegExp[] = [
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

/** System error codes that name a failure on the user's machine (ENOENT, ECONNREFUSED, ERESOLVE). */
export const ERROR_CODES =
  /^E(?:CONN\w+|NOENT|ACCES|PERM|ADDRINUSE|RESOLVE|EXIST|ISDIR|NOTDIR|MFILE|PIPE|TIMEDOUT|NOTFOUND|INVAL|NOTEMPTY)$/;

/** Lines that end or begin like code; two of them make a paste `agent_task`. */
export const CODE_LINE_ENDINGS = ['{', '}', ';'];
export const CODE_LINE_STARTS =
  /^(?:def|class|function|import|const|let|var|fn|func|public|private|package|#include)\s/;
export const CODE_LINES_NEEDED = 2;

// Tokens and lines longer than these are not file names or stack frames; skipping them keeps
// every regular expression on short input.
export const MAX_TOKEN = 300;
export const MAX_LINE = 1000;
export const MAX_SNIPPET = 40;
