/**
 * Running git for the read-only git tools: the program itself (no shell), in the workspace root,
 * with the scrubbed environment, no pager, no colour, no prompts, and never a program the
 * repository names: what can be overridden is (approval/git-hazards.ts), and a repository whose
 * configuration would still run one (a clean filter, a diff driver) is refused before git runs.
 */
import { inspectRepository, unaskedGitEnvironment } from '../../approval/git-hazards.ts';
import { type ProcessOutcome, runProcess } from './run-process.ts';
import { type ToolContext, type ToolResult, toolError } from '../types.ts';
import { errorCode } from '../../support/errno.ts';

const GIT_OPTIONS = [
  '--no-pager',
  '--literal-pathspecs',
  '-c',
  'color.ui=never',
  '-c',
  'core.quotePath=false',
];

/**
 * The tool error for a repository whose configuration would make git run a program, or
 * undefined when git may run. These tools never ask; run_command can, so the model is sent there.
 */
export async function unsafeRepository(context: ToolContext, tool: string): Promise<ToolResult | undefined> {
  const { hazards } = await inspectRepository(context.workspace.root, context.commandEnv, (absolute) =>
    context.workspace.contains(absolute),
  );
  if (hazards.length === 0) return undefined;
  return toolError(
    'unsafe_repository',
    `${tool} did not run git: the repository would make it run a program (${hazards.join('; ')}). Nothing was run. ` +
      `If the user trusts this repository, use run_command, which asks them first.`,
  );
}

/** The outcome of a git command, or the tool error that explains why git could not run. */
export async function runGit(
  context: ToolContext,
  args: readonly string[],
  outputLimit = context.settings.commandOutputLimit,
): Promise<ProcessOutcome | { error: ToolResult }> {
  try {
    const outcome = await runProcess({
      file: 'git',
      args: [...GIT_OPTIONS, ...args],
      cwd: context.workspace.root,
      env: {
        // No prompt, no index.lock, no pager (unaskedGitEnvironment), and English messages
        // (we recognise "not a git repository").
        ...unaskedGitEnvironment(context.commandEnv),
        LC_ALL: 'C',
      },
      timeoutMs: context.settings.commandTimeoutMs,
      signal: context.signal,
      outputLimit,
    });
    const failure = gitFailure(outcome, args[0] ?? 'git', context);
    return failure === undefined ? outcome : { error: failure };
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') {
      return {
        error: toolError(
          'git_not_found',
          'git is not installed or not on PATH, so this tool cannot run. Use the file tools instead.',
        ),
      };
    }
    return { error: toolError('git_failed', `Could not start git: ${(error as Error).message}.`) };
  }
}

/** The workspace's repository top level (real path), or the error for a workspace that is not in one. */
export async function repositoryRoot(context: ToolContext): Promise<string | { error: ToolResult }> {
  const outcome = await runGit(context, ['rev-parse', '--show-toplevel']);
  if ('error' in outcome) return outcome;
  return outcome.stdout.text.trim();
}

function gitFailure(
  outcome: ProcessOutcome,
  subcommand: string,
  context: ToolContext,
): ToolResult | undefined {
  const seconds = Math.round(context.settings.commandTimeoutMs / 1000);
  switch (outcome.ended) {
    case 'timeout':
      return toolError(
        'timeout',
        `git ${subcommand} did not finish within ${seconds} s and was stopped. Try a narrower path, or run it with run_command and a larger timeout.`,
      );
    case 'cancelled':
      return toolError('cancelled', `git ${subcommand} was stopped because the run was cancelled.`);
    case 'exited':
      break;
    default: {
      const _exhaustive: never = outcome.ended;
      throw new Error(`unexpected outcome ${String(_exhaustive)}`);
    }
  }
  if (outcome.exitCode === 0) return undefined;
  const message =
    outcome.stderr.text.trim() || `exit code ${outcome.exitCode ?? outcome.exitSignal ?? 'unknown'}`;
  if (/not a git repository/i.test(message)) {
    return toolError(
      'not_a_repository',
      `The workspace ${context.workspace.root} is not inside a git repository, so there is no git status or diff to show.`,
    );
  }
  if (/dubious ownership/i.test(message)) {
    return toolError(
      'git_failed',
      `git refuses to work in ${context.workspace.root} because the repository belongs to another user (git: ${message}). ` +
        'The user can mark it safe with git config --global --add safe.directory.',
    );
  }
  return toolError('git_failed', `git ${subcommand} failed: ${message}`);
}
