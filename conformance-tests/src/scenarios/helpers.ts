/** Small steps the scenarios share: prompts and their phases, error codes, raw frames, files. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeTurn } from '../fake-providers/index.ts';
import { type ScenarioContext, ScenarioStop } from '../run/context.ts';
import type { Json, ServerUnderTest } from '../wire/peer.ts';

export const PROMPT_TIMEOUT_MS = 30_000;

export interface PromptOutcome {
  response: Json;
  result: Json;
  phases: Json[];
}

/** `value` when it is a string, else `''`. */
export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The error code of a response, or undefined for a result. */
export function codeOf(response: Json): number | undefined {
  const error = response.error as Json | undefined;
  return typeof error?.code === 'number' ? error.code : undefined;
}

export function describeResponse(response: Json): string {
  return JSON.stringify(response.error ?? response.result ?? response).slice(0, 300);
}

/** The phases of run `runId`, in the order they arrived. */
export function phasesOf(server: ServerUnderTest, runId: unknown): Json[] {
  return server.received
    .filter((m) => m.method === 'phase' && (m.params as Json | undefined)?.runId === runId)
    .map((m) => m.params as Json);
}

/** The params of every server request of `method` so far. */
export function requestsOf(server: ServerUnderTest, method: string): Json[] {
  return server.received
    .filter((m) => m.method === method && Object.hasOwn(m, 'id'))
    .map((m) => (m.params ?? {}) as Json);
}

/** Sends `prompt` and waits for its result; stops the scenario on an error response. */
export async function prompt(
  server: ServerUnderTest,
  params: Json,
  timeoutMs = PROMPT_TIMEOUT_MS,
): Promise<PromptOutcome> {
  const response = await server.request('prompt', params, timeoutMs);
  const result = response.result as Json | undefined;
  if (result === undefined) throw new ScenarioStop(`prompt failed: ${describeResponse(response)}`);
  return { response, result, phases: phasesOf(server, result.runId) };
}

/** Sends `prompt` without waiting; returns its id. */
export function startPrompt(
  server: ServerUnderTest,
  params: Json,
  id: number | string = server.nextId(),
): number | string {
  server.send({ jsonrpc: '2.0', id, method: 'prompt', params });
  return id;
}

/** The response to request `id` (a number or string, compared as written). */
export function responseTo(
  server: ServerUnderTest,
  id: unknown,
  timeoutMs = PROMPT_TIMEOUT_MS,
  what = `the response to request ${JSON.stringify(id)}`,
): Promise<Json> {
  return server.waitFor((m) => !Object.hasOwn(m, 'method') && m.id === id, timeoutMs, what);
}

/**
 * The next server request of `method` (`approve`, `ask`) after the first `after`; with `promptId`,
 * the scenario stops at once if that prompt is answered first (the request will never come).
 */
export async function serverRequest(
  server: ServerUnderTest,
  method: string,
  after = 0,
  promptId?: number | string,
  timeoutMs = PROMPT_TIMEOUT_MS,
): Promise<Json> {
  let seen = 0;
  const request = server.waitFor(
    (m) => m.method === method && Object.hasOwn(m, 'id') && seen++ >= after,
    timeoutMs,
    `${method} request from the server`,
  );
  if (promptId === undefined) return request;
  const answered = responseTo(server, promptId, timeoutMs).then((response) => {
    throw new ScenarioStop(
      `the prompt was answered without any ${method} request: ${describeResponse(response)}`,
    );
  });
  answered.catch(() => undefined);
  return Promise.race([request, answered]);
}

/** Resolves once a run after `earlierRunId` streams text: that run is certainly going on. */
export function textOfNextRun(server: ServerUnderTest, earlierRunId: unknown): Promise<Json> {
  return server.waitFor(
    (m) =>
      m.method === 'phase' && (m.params as Json).type === 'text' && (m.params as Json).runId !== earlierRunId,
    PROMPT_TIMEOUT_MS,
    'a text phase of the second run',
  );
}

/** A model turn that streams some text, then stalls until the client gives up. */
export function stallingTurn(): FakeTurn {
  return {
    text: ['Working on it: ', 'reading the code ', 'and then '],
    fault: { kind: 'stall', afterEvents: 5 },
  };
}

/** Resolves once `condition` holds (polled: it may depend on the fake providers, not on messages). */
export async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new ScenarioStop(`no ${what} within ${timeoutMs / 1000} s`);
    await sleep(20);
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The texts of every model request after the first `skip`, as one string (what the model was sent). */
export function sentToModel(requests: { body: unknown }[], skip = 0): string {
  return requests
    .slice(skip)
    .map((r) => JSON.stringify(r.body))
    .join('\n');
}

export function toolResults(phases: Json[]): Json[] {
  return phases.filter((p) => p.type === 'tool_result');
}

/** The file at `path` in the workspace, or undefined when there is none. */
export function fileIn(ctx: ScenarioContext, path: string): string | undefined {
  const full = join(ctx.workspace, path);
  return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
}

/** What is at `path` in the workspace, for a check's detail: absent, or its content. */
export function describeFile(ctx: ScenarioContext, path: string): string {
  const content = fileIn(ctx, path);
  return content === undefined
    ? `${path} does not exist`
    : `${path} holds ${JSON.stringify(content.slice(0, 120))}`;
}

/** Which of `markers` occur in `text` and which do not, for a check's detail. */
export function describeMarkers(text: string, ...markers: string[]): string {
  return markers.map((m) => `${JSON.stringify(m)} ${text.includes(m) ? 'sent' : 'not sent'}`).join(', ');
}
