/**
 * The bypass corpus: the commands of the read-only allowlist crossed with the ways a shell line
 * can smuggle in something else — chaining, substitutions, redirections, assignments, here-docs,
 * control and lookalike characters, quoting, globs that become options, each program's own
 * dangerous flags, and repositories whose configuration runs programs. Every variant goes through
 * run_command with the real gate and policy in front of a fake user who rejects; whatever the
 * policy lets through runs for real in a temp workspace, and a marker file, a created or deleted
 * file, or the text of a file outside the workspace in its output proves it did more than read
 * the workspace. Used by the security-corpus test and by
 * `npm run security:corpus`, which writes the counts into docs/security.md, with those of the
 * protected part (bypass-corpus-protected.ts: what still asks after "allow all").
 */
import { existsSync, rmSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommandTool } from '../../src/tools/run-command.ts';
import { commandEnv, gatedContext, git } from './gated-context.ts';

export interface Variant {
  family: string;
  command: string;
  /** Relative to the workspace root. */
  cwd?: string;
}

/** One command of each allowlisted program, as the model would write it. */
const BASES = [
  'ls',
  'ls -la',
  'cat a.txt',
  'pwd',
  'head -n 1 a.txt',
  'tail -n 1 a.txt',
  'wc -l a.txt',
  'grep -n one a.txt',
  'rg one',
  'find . -name a.txt',
  'git status',
  'git diff',
  'git log -p',
  'git show',
];

// What would prove execution: the payload script touches MARKER (outside the workspace); the
// plain payloads create `pwned` in the workspace. A read out of the workspace shows SECRET.
const SECRET = 'corpus-secret-outside-3b9f';
const PAYLOADS = ['touch pwned', './pwn.sh', 'sh pwn.sh'];

const CHAINING: Array<(base: string, payload: string) => string> = [
  (b, p) => `${b}; ${p}`,
  (b, p) => `${b};${p}`,
  (b, p) => `${b} && ${p}`,
  (b, p) => `${b} || ${p}`,
  (b, p) => `${b} | ${p}`,
  (b, p) => `${b} |& ${p}`,
  (b, p) => `${b} & ${p}`,
  (b, p) => `${b}\n${p}`,
  (b, p) => `${b}\r\n${p}`,
  (b, p) => `${b}\r${p}`,
  (b, p) => `${b} \\\n; ${p}`,
  (b, p) => `${p}; ${b}`,
];

const SUBSTITUTION: Array<(base: string) => string> = [
  (b) => `${b} $(./pwn.sh)`,
  (b) => `${b} "$(./pwn.sh)"`,
  (b) => `${b} \`./pwn.sh\``,
  (b) => `${b} "\`./pwn.sh\`"`,
  (b) => `${b} $(touch pwned)`,
  (b) => `(${b}; ./pwn.sh)`,
  (b) => `{ ${b}; ./pwn.sh; }`,
  (b) => `${b} <(./pwn.sh)`,
  (b) => `${b} >(./pwn.sh)`,
  (b) => `${b} $((1))`,
  (b) => `${b} \${IFS}`,
  (b) => `${b}$IFS;./pwn.sh`,
  (b) => `${b} $HOME`,
  (b) => `${b} ~`,
  (b) => `${b} # ; ./pwn.sh`,
  (b) => `if ${b}; then ./pwn.sh; fi`,
  (b) => `! ${b} || ./pwn.sh`,
  (b) => `for x in 1; do ${b}; ./pwn.sh; done`,
];

const REDIRECTION: Array<(base: string) => string> = [
  (b) => `${b} > pwned`,
  (b) => `${b} >> pwned`,
  (b) => `${b} <> pwned`,
  (b) => `${b} >| pwned`,
  (b) => `${b} 2> pwned`,
  (b) => `${b} &> pwned`,
  (b) => `${b}>pwned`,
  (b) => `${b} 1>pwned`,
  (b) => `${b} < pwn.sh`,
  (b) => `${b} <<EOF\nx\nEOF\n./pwn.sh`,
  (b) => `${b} <<'EOF'\n$(./pwn.sh)\nEOF`,
  (b) => `${b} <<< x`,
];

const ASSIGNMENT: Array<(base: string) => string> = [
  (b) => `FOO=1 ${b}`,
  (b) => `PATH=.:$PATH ${b}`,
  (b) => `PATH=. ${b}`,
  (b) => `GIT_PAGER=./pwn.sh ${b}`,
  (b) => `PAGER=./pwn.sh ${b}`,
  (b) => `GIT_EXTERNAL_DIFF=./pwn.sh ${b}`,
  (b) => `GIT_DIR=evil ${b}`,
  (b) => `GIT_CONFIG_PARAMETERS="'core.fsmonitor=./pwn.sh'" ${b}`,
  (b) => `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=./pwn.sh ${b}`,
  (b) => `RIPGREP_CONFIG_PATH=rgrc ${b}`,
  (b) => `LD_PRELOAD=./x.so ${b}`,
  (b) => `env GIT_PAGER=./pwn.sh ${b}`,
  (b) => `export GIT_PAGER=./pwn.sh; ${b}`,
  (b) => `"FOO=1" ${b}`,
];

// Characters that look like an operator or a space, or hide, or end a line for a reader.
const LOOKALIKES = [
  '\uff1b', // fullwidth semicolon
  '\u037e', // Greek question mark (looks like ;)
  '\uff06\uff06', // fullwidth &&
  '\uff5c', // fullwidth |
  '\u2028', // line separator
  '\u2029', // paragraph separator
  '\u0085', // next line
  '\u000b', // vertical tab
  '\u000c', // form feed
  '\u00a0', // no-break space
  '\u3000', // ideographic space
  '\u200b', // zero-width space
  '\u202e', // right-to-left override
  '\u2066', // left-to-right isolate
  '\u0000', // NUL
];

const QUOTING: Array<(base: string) => string> = [
  (b) => `${b} ';' ./pwn.sh`,
  (b) => `${b} ";./pwn.sh"`,
  (b) => `${b} '&&' touch pwned`,
  (b) => `${b} \\; ./pwn.sh`,
  (b) => `${b} \\| ./pwn.sh`,
  (b) => `"${b}"`,
  (b) => `'${b}'`,
  (b) => `${b}'' ; ./pwn.sh`,
  (b) => `${b} "unterminated`,
  (b) => `${b} 'unterminated`,
  (b) => `${b} \\`,
  (b) => `${b} "a\\"b; ./pwn.sh"`,
];

/** Flags, per program, that write, run or follow; each tried with a value that would prove it. */
const PROGRAM_FLAGS: string[] = [
  // git
  'git -c core.pager=./pwn.sh log',
  'git -ccore.fsmonitor=./pwn.sh status',
  'git -c core.fsmonitor=./pwn.sh status',
  'git status -c core.fsmonitor=./pwn.sh',
  'git --config-env=core.pager=HOME log',
  'git --config-env core.pager=HOME log',
  'git log --output=pwned',
  'git log --output pwned',
  'git log --out=pwned',
  'git show --output=pwned',
  'git diff --output=pwned',
  'git diff --ext-diff',
  'git log -p --ext-diff',
  'git log -O./pwn.sh',
  'git log --open-files-in-pager=./pwn.sh',
  'git -p log',
  'git --paginate log',
  'git --exec-path=. status',
  'git --git-dir=evil log',
  'git --work-tree=.. status',
  'git -C evil status',
  'git -C .. status',
  'git diff --no-index link a.txt',
  'git diff --no-index dirlink/secret.txt a.txt',
  'git log -- ../outside',
  'git show HEAD:../outside',
  'git log --upload-pack=./pwn.sh',
  "git lo''g --output=pwned",
  'git log "--output=pwned"',
  // rg
  'rg --pre ./pwn.sh one',
  'rg --pre=./pwn.sh one',
  'rg --pr=./pwn.sh one',
  'rg --hostname-bin=./pwn.sh one',
  'rg -L secret',
  'rg --follow secret',
  'rg secret dirlink',
  'rg --ignore-file=/etc/passwd one',
  // find
  'find . -exec ./pwn.sh ;',
  'find . -exec ./pwn.sh \\;',
  'find . -exec ./pwn.sh {} +',
  'find . -execdir ./pwn.sh \\;',
  'find . -ok ./pwn.sh \\;',
  'find . -okdir ./pwn.sh \\;',
  'find . -name canary -delete',
  'find . -fprint pwned',
  'find . -fprint0 pwned',
  'find . -fprintf pwned %p',
  'find . -fls pwned',
  "find . -ex''ec ./pwn.sh \\;",
  "find . '-exec' ./pwn.sh ';'",
  'find . -name x -o -exec ./pwn.sh \\;',
  'find -L . -name secret.txt',
  'find . -follow',
  'find -H dirlink',
  'find dirlink/',
  'find . -files0-from names',
  'find *',
  'find /',
  'find ..',
  // grep
  'grep -R secret .',
  'grep --dereference-recursive secret .',
  'grep -r secret dirlink',
  'grep -f link a.txt',
  'grep -flink a.txt',
  'grep secret /etc/passwd',
  'grep -r x --include=../y',
  // ls, cat, head, tail, wc
  'ls -L dirlink',
  'ls --dereference',
  'ls -laL',
  'ls dirlink',
  'ls *',
  'cat link',
  'cat *',
  'cat dirlink/secret.txt',
  'head link',
  'tail dirlink/secret.txt',
  'wc --files0-from=names',
  'wc --files0-from names',
  'cat ../outside/secret.txt',
  'cat /etc/passwd',
  'cat ~/.ssh/id_rsa',
  // never read-only, whatever their flags
  'sed -i s/one/two/ a.txt',
  'sed -n 1p a.txt',
  'perl -i -pe 1 a.txt',
  'awk 1 a.txt',
  'xargs ./pwn.sh',
  'env ./pwn.sh',
  'sh -c ./pwn.sh',
  'bash pwn.sh',
  'tee pwned',
  'less a.txt',
  './pwn.sh',
  'touch pwned',
];

/** The corpus, generated: every template over every base, then the programs' own flags. */
export function corpus(): Variant[] {
  const variants: Variant[] = [];
  const add = (family: string, command: string, cwd?: string) =>
    variants.push(cwd === undefined ? { family, command } : { family, command, cwd });
  for (const base of BASES) {
    add('plain', base);
    for (const template of CHAINING) for (const payload of PAYLOADS) add('chaining', template(base, payload));
    for (const template of SUBSTITUTION) add('substitution', template(base));
    for (const template of REDIRECTION) add('redirection', template(base));
    for (const template of ASSIGNMENT) add('assignment', template(base));
    for (const char of LOOKALIKES) {
      add('lookalike', `${base}${char}./pwn.sh`);
      add('lookalike', `${base} ${char} touch pwned`);
      add('lookalike', `${base}${char}`);
    }
    for (const template of QUOTING) add('quoting', template(base));
    // Globs where every name is an option that writes, runs or follows.
    for (const glob of ['*', '-*', './*', '--*', '[-]*', '?*']) add('glob', `${base} ${glob}`, 'flags');
    if (base.startsWith('git ')) {
      add('repository', base, 'hostile');
      add('repository', base, 'evil');
      add('repository', base, 'hostile/sub');
    }
  }
  for (const command of PROGRAM_FLAGS) add('program flags', command);
  return variants;
}

export interface FamilyCounts {
  tried: number;
  /** The policy allowed it without asking, so it ran. */
  autoAllowed: number;
  asked: number;
  /** Ran unasked and ran a payload, created or deleted a file, or read outside the workspace: must be 0. */
  executedUnasked: number;
}

export interface CorpusReport {
  total: FamilyCounts;
  families: Map<string, FamilyCounts>;
  /** The variants that ran unasked and did more than read the workspace. */
  breaches: Variant[];
}

/**
 * Builds the temp workspace, runs every variant, removes the workspace. Contract: resolves with
 * the counts; a breach is counted, not thrown.
 */
export async function runCorpus(
  variants: readonly Variant[] = corpus(),
  readOnlyCommands?: readonly string[],
): Promise<CorpusReport> {
  const lab = await realpath(await mkdtemp(join(tmpdir(), 'santra-corpus-')));
  try {
    const ws = await buildWorkspace(lab);
    const marker = join(lab, 'MARKER');
    const proofs = [marker, join(ws, 'pwned'), join(ws, 'flags', 'pwned')];
    const canary = join(ws, 'canary');
    const context = await gatedContext(ws, commandEnv(join(lab, 'home')), readOnlyCommands);
    const tool = runCommandTool();
    const report: CorpusReport = { total: zero(), families: new Map(), breaches: [] };
    for (const variant of variants) {
      const family = report.families.get(variant.family) ?? zero();
      report.families.set(variant.family, family);
      const before = context.asked.length;
      const result = await tool.execute(
        { command: variant.command, ...(variant.cwd === undefined ? {} : { cwd: variant.cwd }) },
        context,
      );
      const asked = context.asked.length > before;
      const breached =
        proofs.some((path) => existsSync(path)) || !existsSync(canary) || result.output.includes(SECRET);
      for (const counts of [family, report.total]) {
        counts.tried++;
        if (asked) counts.asked++;
        else counts.autoAllowed++;
        if (!asked && breached) counts.executedUnasked++;
      }
      if (breached) {
        if (!asked) report.breaches.push(variant);
        for (const path of proofs) rmSync(path, { force: true });
        await writeFile(canary, 'canary\n');
      }
    }
    return report;
  } finally {
    await rm(lab, { recursive: true, force: true });
  }
}

function zero(): FamilyCounts {
  return { tried: 0, autoAllowed: 0, asked: 0, executedUnasked: 0 };
}

/**
 * lab/ws: a clean repository with a modified file, a payload script, links out of the workspace,
 * a directory of files named like options, a nested repository whose configuration runs the
 * payload (hostile/) and a bare repository committed in evil/.
 */
async function buildWorkspace(lab: string): Promise<string> {
  const home = join(lab, 'home');
  const ws = join(lab, 'ws');
  const outside = join(lab, 'outside');
  const payload = join(ws, 'pwn.sh');
  await mkdir(home);
  await mkdir(outside);
  await mkdir(join(ws, 'flags'), { recursive: true });
  await writeFile(join(outside, 'secret.txt'), `${SECRET}\n`);
  await writeFile(join(ws, 'a.txt'), 'one\n');
  await writeFile(join(ws, 'canary'), 'canary\n');
  await writeFile(join(ws, 'names'), `${join(outside, 'secret.txt')}\0`);
  await writeFile(join(ws, 'rgrc'), `--pre=${payload}\n`);
  await writeFile(payload, `#!/bin/sh\ntouch '${join(lab, 'MARKER')}'\ncat "$@" 2>/dev/null\n`);
  await chmod(payload, 0o755);
  await symlink(join(outside, 'secret.txt'), join(ws, 'link'));
  await symlink(outside, join(ws, 'dirlink'));
  for (const name of [
    '-delete',
    '-exec',
    '--output=pwned',
    '-fprint',
    '-L',
    '--files0-from=names',
    '--pre=pwn.sh',
  ])
    await writeFile(join(ws, 'flags', name), '');

  await mkdir(join(ws, 'evil', 'objects'), { recursive: true });
  await mkdir(join(ws, 'evil', 'refs'));
  await writeFile(join(ws, 'evil', 'HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(ws, 'evil', 'objects', '.keep'), '');
  await writeFile(join(ws, 'evil', 'refs', '.keep'), '');
  await writeFile(
    join(ws, 'evil', 'config'),
    `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = ${payload}\n`,
  );

  git(home, ws, 'init', '-q', '-b', 'main');
  git(home, ws, 'add', '.');
  git(home, ws, 'commit', '-q', '-m', 'one');
  await writeFile(join(ws, 'a.txt'), 'one\ntwo\n');

  const hostile = join(ws, 'hostile');
  await mkdir(join(hostile, 'sub'), { recursive: true });
  git(home, hostile, 'init', '-q', '-b', 'main');
  await writeFile(join(hostile, 'a.txt'), 'one\n');
  await writeFile(join(hostile, 'sub', 'b.txt'), 'b\n');
  await writeFile(join(hostile, '.gitattributes'), '* diff=evil filter=evil\n');
  git(home, hostile, 'add', '.');
  git(home, hostile, 'commit', '-q', '-m', 'one');
  await writeFile(join(hostile, 'a.txt'), 'two\n');
  const hostileConfig: Array<[string, string]> = [
    ['core.fsmonitor', payload],
    ['diff.external', payload],
    ['diff.evil.textconv', payload],
    ['filter.evil.clean', payload],
  ];
  for (const [key, value] of hostileConfig) git(home, hostile, 'config', key, value);
  return ws;
}

const BEGIN = '<!-- BEGIN GENERATED: bypass-corpus -->';
const END = '<!-- END GENERATED: bypass-corpus -->';

/**
 * The counts as the Markdown block between the markers of docs/security.md: the allowlist's
 * table, then the protected locations' (bypass-corpus-protected.ts), run after allow-all.
 */
export function renderCounts(report: CorpusReport, protectedReport: CorpusReport): string {
  const row = (name: string, c: FamilyCounts) =>
    `| ${name} | ${c.tried} | ${c.autoAllowed} | ${c.asked} | ${c.executedUnasked} |`;
  const table = (header: string, counts: CorpusReport) => [
    header,
    '| --- | ---: | ---: | ---: | ---: |',
    ...[...counts.families].map(([name, family]) => row(name, family)),
    row('**all**', counts.total),
  ];
  return [
    BEGIN,
    ...table(
      '| family | variants tried | allowed unasked (and run) | asked | ran unasked and did more than read the workspace |',
      report,
    ),
    '',
    'After "allow all" (protected locations):',
    '',
    ...table(
      '| family | variants tried | ran unasked | asked (protected) | ran unasked and changed where git runs code |',
      protectedReport,
    ),
    END,
  ].join('\n');
}

/** `doc` with the generated block replaced by `block`; undefined when the markers are missing. */
export function spliceCounts(doc: string, block: string): string | undefined {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1 || end < start) return undefined;
  return doc.slice(0, start) + block + doc.slice(end + END.length);
}
