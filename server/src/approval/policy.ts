/**
 * Per-tool and per-command policy from the config, evaluated deny → ask → allow, safe by default:
 * read-only tools are always allowed, edits and commands ask, and a command is allowed without
 * asking only when every part of it is on the read-only allowlist (which fails closed) and the
 * inspection of where it runs (command-site.ts) found nothing: no path leading out of the
 * workspace, no program from inside it, no repository configuration that makes git run one.
 */
import picomatch from 'picomatch';
import { isAllowlisted, splitCommand } from './command-allowlist.ts';
import type { CommandInspection } from './command-site.ts';

export type PolicyDecision = 'allow' | 'ask' | 'deny';

export interface PolicyVerdict {
  decision: PolicyDecision;
  /** Why, for the model, when denied. */
  reason: string;
  /** The user's own rule asks about it (`tools.askCommands`): no permission mode lets it by. */
  askedByRule?: true;
}

export interface PolicySettings {
  /** Per tool name: allow (no approval), ask (default for edits and commands) or deny. */
  tools: Record<string, PolicyDecision>;
  /** Commands never run, as glob patterns over the whole command line (e.g. "rm -rf *", "git push*"). */
  denyCommands: readonly string[];
  /** Commands that still ask even when on the read-only allowlist or under a tool-level allow. */
  askCommands: readonly string[];
  /** Read-only programs run without asking (every part of a compound command must be listed). */
  readOnlyCommands: readonly string[];
}

export interface ToolPolicy {
  forTool(toolName: string): PolicyVerdict;
  /**
   * `inspection`: what run_command found where the command will run (command-site.ts); without a
   * clean one for exactly this string, nothing is allowed unasked.
   */
  forCommand(command: string, inspection?: CommandInspection, options?: CommandPolicyOptions): PolicyVerdict;
  /**
   * Whether the command is read-only as the allowlist and a clean inspection of exactly this
   * string say, whatever a tool-level allow or `askCommands` would do: what plan mode runs.
   */
  readOnly(command: string, inspection?: CommandInspection): boolean;
}

export interface CommandPolicyOptions {
  /**
   * The command will run in the OS sandbox's `workspace-write` profile and the user chose that
   * such commands run unasked (`sandbox.autoRun`): what would be asked only for not being on the
   * read-only allowlist is allowed. `askCommands`, a `deny` and protected locations still apply.
   */
  sandboxAutoRun?: boolean;
}

export function createPolicy(settings: PolicySettings): ToolPolicy {
  const matcher = (patterns: readonly string[]): ((command: string) => boolean) => {
    if (patterns.length === 0) return () => false;
    const match = picomatch([...patterns], { bash: true, dot: true });
    return (command) => match(command);
  };
  const denied = matcher(settings.denyCommands);
  const asked = matcher(settings.askCommands);
  const forTool = (toolName: string): PolicyVerdict => {
    const decision = settings.tools[toolName] ?? 'ask';
    return { decision, reason: `the configuration denies the tool ${toolName} (tools.policy).` };
  };
  return {
    forTool,
    readOnly(command, inspection) {
      if (!isAllowlisted(command, settings.readOnlyCommands)) return false;
      if (inspection?.command !== command || inspection.findings.length > 0) return false;
      inspection.allowedUnasked = true;
      return true;
    },
    forCommand(command, inspection, options = {}) {
      const normalized = command.trim();
      // Patterns apply to the whole line and to each of its simple commands (`ls && git push`).
      // Trimmed too, which can only make a deny or ask pattern match more often.
      const parts = [
        command,
        normalized,
        ...(splitCommand(normalized) ?? []).map((argv) => argv.join(' ')),
        ...looseParts(normalized),
      ];
      if (parts.some(denied))
        return { decision: 'deny', reason: `the configuration denies this command (tools.denyCommands).` };
      const tool = forTool('run_command');
      if (tool.decision === 'deny') return tool;
      if (parts.some(asked)) return { decision: 'ask', reason: '', askedByRule: true };
      if (tool.decision === 'allow') return tool;
      // The exact string that will run, never a trimmed one: `ls\r` is not `ls`.
      if (isAllowlisted(command, settings.readOnlyCommands)) {
        if (inspection?.command === command && inspection.findings.length === 0) {
          inspection.allowedUnasked = true;
          return { decision: 'allow', reason: '' };
        }
      }
      if (options.sandboxAutoRun === true) return { decision: 'allow', reason: '' };
      return { decision: 'ask', reason: '' };
    },
  };
}

/**
 * A rough split for deny matching only, where the exact parser gives up (`FOO=1 git push`,
 * `git push $(x)`): at every operator, with leading variable assignments dropped. It may cut too
 * much, which can only make a deny pattern match more often.
 */
function looseParts(command: string): string[] {
  return command
    .split(/&&|\|\||[;|&\n()`]|\$\(/)
    .map((part) => part.trim().replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/, ''))
    .filter((part) => part !== '');
}
