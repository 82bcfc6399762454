/**
 * Santra's `approve` and `ask` put to the editor's user through ACP.
 *
 * approve → `session/request_permission` on the tool call, with the diff or command shown, its
 *   options named as Zed's own ACP agents name theirs (Claude Code's: "Allow", "Always Allow",
 *   "Reject"), with what "always" covers said:
 *   Allow (allow_once) → allow; Always allow edits and commands (allow_always) → allow_all, which is
 *   Santra's state for the rest of the session, for every edit and command alike; Reject
 *   (reject_once) → reject; and, when the client renders forms
 *   (elicitation), Reject with feedback… (reject_once) → a one-field form whose text goes to the
 *   model. A protected location is never offered "allow all" (Santra asks each time, §7.3); its
 *   request says so in its title, kind (`other`), option name and `_meta.santra.protected`. An
 *   outcome of `cancelled` (the turn was cancelled) is declined: Santra treats it as a rejection.
 *
 *   Approvals that edit (protocol §7.3.2): ACP's permission outcome is an option id and nothing
 *   more (ACP v1 and v2 have no field for an edited proposal), so an edit travels in its `_meta`,
 *   the place ACP keeps for such extensions. The request says what it may carry in
 *   `_meta.santra.edit` — `content` and the `hunks` ids for a file created or modified,
 *   `command` for a command — and an "Allow" outcome with `_meta.santra.content`, `.hunks` or
 *   `.command` answers with the person's version. A client that sends none gets the
 *   all-or-nothing answer its option says. With forms, a command also offers "Edit the command,
 *   then allow…": a form holding the command line.
 *
 * ask → a form (`elicitation/create`) when the client renders forms: the options as a choice,
 *   otherwise a text field. Without forms, a question with options is a permission request whose
 *   options are the answers; a free-text question cannot be put, so it is declined — the agent
 *   proceeds on its own judgement — and the user is told so in the message. A `secret` question
 *   is always declined: an ACP form is no place for a key.
 */
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionRequest,
  SessionUpdate,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type { ApproveParams, ApproveResult, AskParams, AskResult } from '#protocol';
import { Declined } from '../adapters/santra-client.ts';

export interface Editor {
  context: AgentContext;
  sessionId: string;
  /** The client renders `elicitation/create` forms. */
  forms: boolean;
  /** Tells the user something in the thread (an agent message chunk). */
  say(update: SessionUpdate): Promise<void>;
}

const ALLOW = 'allow';
const ALLOW_ALL = 'allow_all';
const REJECT = 'reject';
const FEEDBACK = 'feedback';
const EDIT_COMMAND = 'edit_command';

/** What an "Allow" outcome may carry in `_meta.santra` for this request (none: an empty object). */
export interface EditableBy {
  content?: true;
  hunks?: string[];
  command?: true;
}

export function editableBy(params: ApproveParams): EditableBy {
  if (params.kind === 'command') return params.escalation === undefined ? { command: true } : {};
  if (params.kind !== 'file_change' || params.toolName === 'session/undo') return {};
  if (params.operation !== 'create' && params.operation !== 'modify') return {};
  const ids = params.diff.hunks.flatMap((hunk) => (hunk.id === undefined ? [] : [hunk.id]));
  return {
    content: true,
    ...(ids.length === params.diff.hunks.length && ids.length > 0 ? { hunks: ids } : {}),
  };
}

export function approvalOptions(params: ApproveParams, forms: boolean): PermissionOption[] {
  const allow =
    params.protected !== true
      ? 'Allow'
      : params.kind === 'command'
        ? 'Allow this command, which touches a protected location'
        : 'Allow this change to a protected location';
  return [
    { optionId: ALLOW, name: allow, kind: 'allow_once' },
    // Santra's allow_all is one switch for the session, whatever the request's kind: the name says
    // so, or "always" on an edit would read as "always allow edits".
    ...(params.protected === true
      ? []
      : [{ optionId: ALLOW_ALL, name: 'Always allow edits and commands', kind: 'allow_always' as const }]),
    ...(forms && editableBy(params).command === true
      ? [{ optionId: EDIT_COMMAND, name: 'Edit the command, then allow…', kind: 'allow_once' as const }]
      : []),
    { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
    ...(forms ? [{ optionId: FEEDBACK, name: 'Reject with feedback…', kind: 'reject_once' as const }] : []),
  ];
}

/**
 * The answer to an "Allow" outcome whose `_meta.santra` may carry the person's version (see the
 * top of the file). A field of the wrong type is declined, naming it: a guess at what the client
 * meant could run or write something the person did not approve. Whether the request can take
 * the field is the server's to check (SANTRA-APPROVE-023): it answers InvalidParams to the model.
 */
export function allowAnswer(meta: Record<string, unknown> | null | undefined): ApproveResult {
  const santra = meta?.santra;
  if (santra === null || typeof santra !== 'object') return { decision: 'allow' };
  const { content, hunks, command } = santra as Record<string, unknown>;
  if (content !== undefined && typeof content !== 'string')
    throw new Declined(
      '_meta.santra.content must be a string: the whole text of the file as the person edited it',
    );
  if (hunks !== undefined && !(Array.isArray(hunks) && hunks.every((id) => typeof id === 'string')))
    throw new Declined(
      '_meta.santra.hunks must be an array of hunk ids (strings) from _meta.santra.edit.hunks',
    );
  if (command !== undefined && (typeof command !== 'string' || command.trim() === ''))
    throw new Declined('_meta.santra.command must be a non-empty string: the command line to run instead');
  return {
    decision: 'allow',
    ...(content === undefined ? {} : { content }),
    ...(hunks === undefined ? {} : { hunks }),
    ...(command === undefined ? {} : { command }),
  };
}

export async function askApproval(
  editor: Editor,
  params: ApproveParams,
  toolCall: ToolCallUpdate,
  signal: AbortSignal,
): Promise<ApproveResult> {
  const response = await editor.context.request(
    'session/request_permission',
    {
      sessionId: editor.sessionId,
      toolCall,
      options: approvalOptions(params, editor.forms),
      ...requestMeta(params),
    },
    { cancellationSignal: signal },
  );
  if (response.outcome.outcome !== 'selected')
    throw new Declined('the editor cancelled the permission request');
  switch (response.outcome.optionId) {
    case ALLOW:
      return allowAnswer(response.outcome._meta);
    case EDIT_COMMAND: {
      if (params.kind !== 'command') throw new Declined('"Edit the command" answers a command only');
      const command = await askForm(
        editor,
        { prompt: 'Edit the command; it runs as you leave it.', header: 'Command', initial: params.command },
        toolCall.toolCallId,
        signal,
      );
      if (command === undefined || command.trim() === '') return { decision: 'reject' };
      return command === params.command ? { decision: 'allow' } : { decision: 'allow', command };
    }
    case ALLOW_ALL:
      if (params.protected === true) throw new Declined('"allow all" cannot answer a protected location');
      return { decision: 'allow_all' };
    case REJECT:
      return { decision: 'reject' };
    case FEEDBACK: {
      const feedback = await askForm(
        editor,
        { prompt: 'Why reject it? The agent reads this.', header: 'Feedback' },
        toolCall.toolCallId,
        signal,
      );
      return feedback === undefined || feedback.trim() === ''
        ? { decision: 'reject' }
        : { decision: 'feedback', feedback };
    }
    default:
      throw new Declined(
        `the editor answered with an option it was not offered (${response.outcome.optionId})`,
      );
  }
}

export async function askQuestion(
  editor: Editor,
  params: AskParams,
  toolCallId: string | undefined,
  signal: AbortSignal,
): Promise<AskResult> {
  if (params.secret === true) {
    await tell(editor, params, 'it asks for a secret, which Santra does not take through the editor');
    throw new Declined('secret questions are not put through ACP; the agent proceeds without the answer');
  }
  if (editor.forms) {
    const answer = await askForm(editor, params, toolCallId, signal);
    if (answer === undefined) throw new Declined('the user declined to answer');
    return { answer };
  }
  const options = params.options ?? [];
  if (options.length > 0 && toolCallId !== undefined) {
    return { answer: await askByPermission(editor, params, toolCallId, signal) };
  }
  await tell(editor, params, 'this editor offers no way to type an answer');
  throw new Declined('the editor cannot put a free-text question to its user');
}

/** A question with choices as a permission request whose options are the answers. */
async function askByPermission(
  editor: Editor,
  params: AskParams,
  toolCallId: string,
  signal: AbortSignal,
): Promise<string> {
  const options = params.options ?? [];
  const request: RequestPermissionRequest = {
    sessionId: editor.sessionId,
    toolCall: {
      toolCallId,
      title: params.header === undefined ? params.prompt : `${params.header}: ${params.prompt}`,
      status: 'pending',
    },
    options: [
      ...options.map((option, index) => ({
        optionId: `answer-${index}`,
        name: option.label,
        kind: 'allow_once' as const,
      })),
      { optionId: 'skip', name: 'Skip (let the agent decide)', kind: 'reject_once' },
    ],
  };
  const response = await editor.context.request('session/request_permission', request, {
    cancellationSignal: signal,
  });
  const chosen =
    response.outcome.outcome === 'selected' ? /^answer-(\d+)$/.exec(response.outcome.optionId) : null;
  const option = chosen === null ? undefined : options[Number(chosen[1])];
  if (option === undefined) throw new Declined('the user skipped the question');
  return option.value;
}

/**
 * `_meta.santra` of a permission request: for editors that approve by rule, whether a person must
 * decide (protected); for editors that can edit a proposal, what an "Allow" may carry instead.
 */
function requestMeta(params: ApproveParams): { _meta?: { santra: Record<string, unknown> } } {
  const edit = editableBy(params);
  const santra = {
    ...(params.protected === true ? { protected: true, reason: params.protectedReason ?? null } : {}),
    ...(Object.keys(edit).length > 0 ? { edit } : {}),
  };
  return Object.keys(santra).length > 0 ? { _meta: { santra } } : {};
}

/** A one-field form: a choice among `options`, or free text. Undefined when the user declines. */
async function askForm(
  editor: Editor,
  question: {
    prompt: string;
    header?: string;
    options?: readonly { label: string; value: string }[];
    /** The text the field starts with. */
    initial?: string;
  },
  toolCallId: string | undefined,
  signal: AbortSignal,
): Promise<string | undefined> {
  const options = question.options ?? [];
  const title = question.header ?? 'Answer';
  const field =
    options.length > 0
      ? {
          type: 'string',
          title,
          oneOf: options.map((option) => ({ const: option.value, title: option.label })),
        }
      : { type: 'string', title, ...(question.initial === undefined ? {} : { default: question.initial }) };
  const response = await editor.context.request(
    'elicitation/create',
    {
      mode: 'form',
      sessionId: editor.sessionId,
      ...(toolCallId === undefined ? {} : { toolCallId }),
      message: question.prompt,
      requestedSchema: { type: 'object', properties: { answer: field }, required: ['answer'] },
    },
    { cancellationSignal: signal },
  );
  if (response.action !== 'accept' || !('content' in response)) return undefined;
  const answer = (response.content as Record<string, unknown> | null | undefined)?.answer;
  return typeof answer === 'string' ? answer : undefined;
}

async function tell(editor: Editor, params: AskParams, why: string): Promise<void> {
  await editor.say({
    sessionUpdate: 'agent_message_chunk',
    content: {
      type: 'text',
      text: `\n\n> Santra asked: ${params.prompt}\n> It could not be put to you here (${why}), so the agent goes on without an answer; say it in your next message if it matters.\n\n`,
    },
  });
}
