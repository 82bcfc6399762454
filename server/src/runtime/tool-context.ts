/**
 * The context a tool call runs in: the workspace boundary, what the agent has read, the approval
 * gate bound to this call, questions to the user, and the scrubbed environment for commands. The
 * one place a ToolContext is built: what the server knows (config, policy, client) is fixed when
 * the tools load; the call's scope (run, agent, call, session approvals, agent control) comes
 * from the loop with each call.
 */
import type { ApproveResult, ClientCapabilities } from '#protocol';
import { createGate } from '../approval/gate.ts';
import type { Hooks } from '../hooks/hooks.ts';
import { notificationHooks } from '../hooks/session-hooks.ts';
import { DEFAULT_READ_ONLY } from '../approval/command-allowlist.ts';
import { createPolicy } from '../approval/policy.ts';
import { protectedCommandReason, protectedReason } from '../approval/protected-paths.ts';
import type { ResolvedConfig } from '../config/config.ts';
import type { ClientChannel } from './contract.ts';
import { editorAccess } from './editor-access.ts';
import type { Logger } from '../support/log.ts';
import type { SandboxStatus } from '../sandbox/probe.ts';
import { CommandSandbox } from '../sandbox/sandbox.ts';
import { scrubEnvironment } from '../tools/commands/env.ts';
import { defaultToolPolicy } from '../tools/tool-policy.ts';
import type { SkillLibrary } from '../tools/load-skill.ts';
import type { Tool, ToolContext, ToolContextSource } from '../tools/types.ts';
import type { FileTracker } from '../workspace/file-tracker.ts';
import type { Workspace } from '../workspace/workspace.ts';

export interface ToolContextDeps {
  workspace: Workspace;
  files: FileTracker;
  client: ClientChannel;
  capabilities: ClientCapabilities;
  autoApprove: boolean;
  config: ResolvedConfig;
  configDir: string;
  env: NodeJS.ProcessEnv;
  /** Every tool, for the policy's defaults. */
  tools: readonly Tool[];
  log: Logger;
  /** Whether the OS sandbox works here (probed once per server); absent: commands run unsandboxed. */
  sandboxStatus?: Promise<SandboxStatus>;
  /** The user's hooks: Notification runs as an approval or a question is put to the user. */
  hooks?: Hooks;
  /** The skills load_skill reads; absent: none. */
  skills?: SkillLibrary;
}

export function toolContexts(deps: ToolContextDeps): ToolContextSource {
  const { config, workspace } = deps;
  const policy = createPolicy({
    // Read-only tools never ask (their kind says so); everything else asks unless the config says otherwise.
    tools: { ...defaultToolPolicy(deps.tools), ...config.tools.policy },
    denyCommands: config.tools.denyCommands,
    askCommands: config.tools.askCommands,
    readOnlyCommands: config.tools.readOnlyCommands ?? DEFAULT_READ_ONLY,
  });
  const commandEnv = scrubEnvironment(deps.env, {
    allow: config.tools.allowEnv,
    // Custom providers may keep their keys in variables of any name.
    remove: Object.values(config.providers).flatMap((provider) =>
      provider.keyEnv === undefined ? [] : [provider.keyEnv],
    ),
  });
  // Asked about even under allow-all (approval/protected-paths.ts).
  const isProtected = (absolute: string) =>
    protectedReason(workspace.display(absolute), absolute, deps.configDir);
  const isProtectedCommand = (command: string) => protectedCommandReason(command, deps.configDir);
  const sandbox =
    deps.sandboxStatus === undefined
      ? undefined
      : new CommandSandbox({
          settings: config.sandbox,
          scope: {
            workspaceRoot: workspace.root,
            allowedDirs: workspace.allowed,
            configDir: deps.configDir,
            home: deps.env.HOME,
          },
          env: deps.env,
          status: deps.sandboxStatus,
        });
  const settings: ToolContext['settings'] = {
    commandTimeoutMs: config.tools.commandTimeoutSeconds * 1000,
    maxCommandTimeoutMs: Math.max(config.tools.commandTimeoutSeconds * 1000, 10 * 60_000),
    commandOutputLimit: config.tools.commandOutputLimitBytes,
    useRipgrep: true,
    allowPrivateNetwork: config.tools.allowPrivateNetwork,
    ...(config.tools.webSearch === undefined ? {} : { webSearch: config.tools.webSearch }),
  };

  return ({ sessionId, runId, agentId, call, signal, approvals, emit, agents, recorder, hookDecision }) => {
    const editor = editorAccess(deps, { sessionId, runId, agentId, toolCallId: call.id, signal });
    // Not awaited: a notifier must not hold up the question it announces.
    const notify = (message: string, type: 'permission_prompt' | 'elicitation_dialog') => {
      if (deps.hooks !== undefined)
        void notificationHooks(deps.hooks, message, type, {
          session: { id: sessionId, messages: [] },
          transcriptPath: '',
          permissionMode: approvals.mode,
          signal,
          warn: (text) => emit({ type: 'status', text }),
        });
    };
    return {
      workspace,
      files: deps.files,
      runId,
      agentId,
      toolCallId: call.id,
      signal,
      settings,
      commandEnv,
      gate: createGate({
        approve:
          deps.capabilities.approve === true
            ? async (params, s) => {
                let answer: ApproveResult | undefined;
                notify(`Santra needs your permission to use ${call.name}`, 'permission_prompt');
                try {
                  answer = await deps.client.approve(params, s);
                  return answer;
                } finally {
                  recorder?.approval(params, answer);
                }
              }
            : undefined,
        autoApprove: deps.autoApprove,
        session: approvals,
        policy,
        isProtected,
        isProtectedCommand,
        sessionId,
        runId,
        agentId,
        toolCallId: call.id,
        toolName: call.name,
        signal,
        ...(hookDecision === undefined ? {} : { hookDecision }),
      }),
      showThinking: (text) => emit({ type: 'thinking', text }),
      showStatus: (text) => emit({ type: 'status', text }),
      async ask(question) {
        if (deps.capabilities.ask !== true) {
          throw new Error('this client cannot answer questions (it did not declare capabilities.ask)');
        }
        let answer: string | undefined;
        notify(
          `Santra has a question for you: ${question.prompt.split('\n')[0] ?? ''}`,
          'elicitation_dialog',
        );
        try {
          ({ answer } = await deps.client.ask(
            { sessionId, runId, agentId, toolCallId: call.id, ...question },
            signal,
          ));
          return answer;
        } finally {
          recorder?.question(question, agentId, answer);
        }
      },
      permissionMode: {
        get: () => approvals.mode,
        set: (mode) => {
          approvals.permissionMode = mode;
        },
      },
      fileChanged: (change) =>
        recorder?.fileChange(change, { agentId, toolCallId: call.id, workspaceRoot: workspace.root }),
      ...(agents === undefined ? {} : { agents }),
      ...(editor === undefined ? {} : { editor }),
      ...(sandbox === undefined ? {} : { sandbox }),
      ...(deps.skills === undefined ? {} : { skills: deps.skills }),
    };
  };
}
