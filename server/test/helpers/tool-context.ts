/**
 * A real ToolContext over a temp directory, for tool tests: a real Workspace and FileTracker,
 * and an approval gate that records every request and answers from a script (default: allow).
 */
import type {
  ApprovalGate,
  FileChangeRequest,
  GateDecision,
  McpToolRequest,
} from '../../src/approval/gate.ts';
import type { AppliedChange, Question, ToolContext, ToolSettings } from '../../src/tools/types.ts';
import { FileTracker } from '../../src/workspace/file-tracker.ts';
import { Workspace } from '../../src/workspace/workspace.ts';
import { tempDir } from '../../../scripts/temp-dirs.ts';

export type GateRequest =
  | { kind: 'file_change'; request: FileChangeRequest }
  | { kind: 'command'; command: string; cwd: string }
  | { kind: 'escalate'; command: string; cwd: string; reason: string }
  | {
      kind: 'mcp_tool';
      server: string;
      tool: string;
      arguments: Record<string, unknown>;
      policy: McpToolRequest['policy'];
      trustedReadOnly: boolean;
    };

export interface TestContext extends ToolContext {
  /** Every request the gate saw, in order. */
  gateRequests: GateRequest[];
  /** Decisions to give, in order; when empty, `allow`. */
  decisions: GateDecision[];
  /** Runs before the gate answers (e.g. to change the file on disk between diff and approval). */
  beforeDecision?: (request: GateRequest) => Promise<void> | void;
  answers: string[];
  questions: Question[];
  statuses: string[];
  thoughts: string[];
  /** Every file change the tools reported, in order. */
  changes: AppliedChange[];
  abort(): void;
}

/** A fresh temp directory (real path), removed when the test file's process exits. */
export async function tempWorkspace(prefix = 'santra-tools-'): Promise<string> {
  return tempDir(prefix);
}

export const TEST_SETTINGS: ToolSettings = {
  commandTimeoutMs: 10_000,
  maxCommandTimeoutMs: 60_000,
  commandOutputLimit: 30_000,
  useRipgrep: true,
};

export async function testContext(
  root: string,
  options: {
    allowedDirs?: string[];
    settings?: Partial<ToolSettings>;
    env?: NodeJS.ProcessEnv;
    agentId?: string;
  } = {},
): Promise<TestContext> {
  const controller = new AbortController();
  const context: TestContext = {
    workspace: await Workspace.open(root, options.allowedDirs ?? []),
    files: new FileTracker(),
    gate: undefined as unknown as ApprovalGate,
    runId: 'run_test',
    agentId: options.agentId ?? 'main',
    toolCallId: 'call_test',
    signal: controller.signal,
    showThinking: (text) => context.thoughts.push(text),
    showStatus: (text) => context.statuses.push(text),
    ask: (question) => {
      context.questions.push(question);
      const answer = context.answers.shift();
      return answer === undefined ? Promise.reject(new Error('no answer scripted')) : Promise.resolve(answer);
    },
    commandEnv: options.env ?? { PATH: process.env.PATH, HOME: root },
    settings: { ...TEST_SETTINGS, ...options.settings },
    gateRequests: [],
    decisions: [],
    answers: [],
    questions: [],
    statuses: [],
    thoughts: [],
    changes: [],
    fileChanged: (change) => context.changes.push(change),
    abort: () => controller.abort(new Error('cancelled by the test')),
  };
  const decide = async (request: GateRequest): Promise<GateDecision> => {
    context.gateRequests.push(request);
    await context.beforeDecision?.(request);
    return context.decisions.shift() ?? { allowed: true };
  };
  context.gate = {
    fileChange: (request) => decide({ kind: 'file_change', request }),
    command: (request) => decide({ kind: 'command', ...request }),
    escalate: (request) => decide({ kind: 'escalate', ...request }),
    mcpTool: (request) => decide({ kind: 'mcp_tool', ...request }),
  };
  return context;
}
