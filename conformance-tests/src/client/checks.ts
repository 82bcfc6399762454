/**
 * The checks every scenario runs over its wire transcript: framing, the JSON-RPC envelope, method
 * schemas, the lifecycle, ids, and the answers to the server's requests. Scenario-specific checks
 * (cancellation, forward compatibility, …) live with their scenario. Pure: a transcript in,
 * findings out, so each check can be tested on a hand-made transcript.
 */
import { JsonRpcErrorCodes } from '#protocol';
import { type Finding, fail, fromProblems, notApplicable, pass } from './findings.ts';
import { definitionName, isObject, validateDefinition } from './json-schema.ts';
import type { Ending } from './scripted-peer.ts';
import { METHODS } from '../spec/schema.ts';
import {
  asMessage,
  isNotification,
  isRequest,
  isResponse,
  type RpcMessage,
  sameId,
  type WireEntry,
} from './wire.ts';

export interface Exchange {
  transcript: WireEntry[];
  ending: Ending;
  /** What the scripted server advertised in capabilities.limits.maxMessageBytes. */
  maxMessageBytes: number;
}

/** A message of the transcript with where it stands. */
interface Located {
  index: number;
  entry: WireEntry;
  message: RpcMessage;
}

const located = (transcript: WireEntry[], from: 'client' | 'server'): Located[] =>
  transcript.flatMap((entry, index) => {
    const message = entry.from === from ? asMessage(entry) : undefined;
    return message === undefined ? [] : [{ index, entry, message }];
  });

const at = (l: { entry: WireEntry }) => `at ${l.entry.at} ms`;
const show = (m: RpcMessage) => {
  const text = JSON.stringify(m);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
};

export function generalChecks(exchange: Exchange): Finding[] {
  return [
    ...framing(exchange),
    envelope(exchange),
    methodsAndParams(exchange),
    ...initializeFirst(exchange),
    initializedAfterResult(exchange),
    idsNotReused(exchange),
    ...answers(exchange, 'approve', 'SANTRA-CLIENT-006'),
    ...answers(exchange, 'ask', 'SANTRA-CLIENT-007'),
    ...idsAsWritten(exchange),
    shutdownBeforeEnd(exchange),
    nothingAfterShutdown(exchange),
    exitAfterShutdownResult(exchange),
    ...declineCodes(exchange),
    waitsForCancelledPrompt(exchange),
    idAndMethodFirst(exchange),
    unknownServerRequests(exchange),
  ];
}

function framing({ transcript, maxMessageBytes }: Exchange): Finding[] {
  const problems: string[] = [];
  const oversized: string[] = [];
  for (const entry of transcript) {
    if (entry.from === 'client' && (entry.faults?.length ?? 0) > 0)
      problems.push(`${entry.faults?.join('; ')} (frame at ${entry.at} ms)`);
    if (entry.from === 'client' && (entry.bytes ?? 0) > maxMessageBytes)
      oversized.push(
        `a body of ${entry.bytes} bytes exceeds maxMessageBytes ${maxMessageBytes} (at ${entry.at} ms)`,
      );
    const note = entry.from === 'note' ? (entry.text ?? '') : '';
    if (note.startsWith('untrustworthy framing') || note.startsWith('the output ended inside a frame'))
      problems.push(`${note} (at ${entry.at} ms)`);
  }
  const frames = transcript.filter((e) => e.from === 'client').length;
  return [
    fromProblems('SANTRA-CLIENT-001', problems, `${frames} frame(s), each well framed`),
    fromProblems('SANTRA-FRAME-008', oversized, `no body above maxMessageBytes (${maxMessageBytes})`),
  ];
}

function envelope({ transcript }: Exchange): Finding {
  const problems: string[] = [];
  for (const entry of transcript.filter((e) => e.from === 'client')) {
    if (entry.message === undefined) {
      problems.push(
        `a body that is not JSON at ${entry.at} ms: ${JSON.stringify((entry.text ?? '').slice(0, 80))}`,
      );
      continue;
    }
    const m = entry.message;
    if (Array.isArray(m)) problems.push(`a batch at ${entry.at} ms (batches are not supported, §2.1)`);
    else if (!isObject(m)) problems.push(`a body that is not an object at ${entry.at} ms`);
    else problems.push(...envelopeProblems(m).map((p) => `${p} in ${show(m)} at ${entry.at} ms`));
  }
  return fromProblems('SANTRA-CLIENT-002', problems, 'every body is a JSON-RPC 2.0 message');
}

function envelopeProblems(m: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (m.jsonrpc !== '2.0') problems.push('"jsonrpc" is not "2.0"');
  if (Object.hasOwn(m, 'method')) {
    if (typeof m.method !== 'string' || m.method === '') problems.push('"method" is not a non-empty string');
    if (Object.hasOwn(m, 'id') && typeof m.id !== 'string' && !Number.isInteger(m.id))
      problems.push(`request id ${JSON.stringify(m.id)} is not an integer or a string`);
    if (Object.hasOwn(m, 'params') && m.params !== null && !isObject(m.params))
      problems.push('"params" is not an object');
  } else {
    const hasResult = Object.hasOwn(m, 'result');
    if (hasResult === Object.hasOwn(m, 'error'))
      problems.push('a response needs exactly one of "result" and "error"');
    if (!Object.hasOwn(m, 'id')) problems.push('a response without "id"');
  }
  return problems;
}

function methodsAndParams({ transcript }: Exchange): Finding {
  const problems: string[] = [];
  for (const { entry, message: m } of located(transcript, 'client')) {
    if (typeof m.method !== 'string') continue;
    const row = METHODS.get(m.method);
    if (row === undefined) {
      problems.push(`${m.method} is not a method of the protocol (at ${entry.at} ms)`);
      continue;
    }
    if (row.direction === 'server_to_client')
      problems.push(`${m.method} is sent by the server, not the client`);
    if (Object.hasOwn(m, 'id') !== (row.kind === 'request'))
      problems.push(
        `${m.method} is a ${row.kind}, sent ${Object.hasOwn(m, 'id') ? 'with' : 'without'} an id`,
      );
    const params = m.params ?? undefined;
    if (params === undefined) {
      if (row.paramsRequired) problems.push(`${m.method} needs params (at ${entry.at} ms)`);
      continue;
    }
    problems.push(
      ...validateDefinition(definitionName(row.params), params, `${m.method} params`).map(
        (p) => `${p} (at ${entry.at} ms)`,
      ),
    );
  }
  return fromProblems('SANTRA-CLIENT-003', problems, 'every method and its params match the schema');
}

/** The first client request, and where the `initialize` result was sent. */
function handshake(transcript: WireEntry[]) {
  const requests = located(transcript, 'client').filter((l) => isRequest(l.message));
  const initialize = requests.find((l) => l.message.method === 'initialize');
  const answer =
    initialize === undefined
      ? undefined
      : located(transcript, 'server').find(
          (l) =>
            isResponse(l.message) &&
            sameId(l.message.id, initialize.message.id) &&
            Object.hasOwn(l.message, 'result'),
        );
  return { requests, initialize, answer };
}

function initializeFirst({ transcript }: Exchange): Finding[] {
  const { requests, answer } = handshake(transcript);
  const first = requests[0];
  if (first === undefined) return [fail('SANTRA-LIFE-003', 'the client sent no request at all')];
  if (first.message.method !== 'initialize')
    return [
      fail(
        'SANTRA-LIFE-003',
        `the first request is ${String(first.message.method)}, not initialize (${at(first)})`,
      ),
    ];
  const early = requests.find(
    (l) => l.message.method !== 'initialize' && (answer === undefined || l.index < answer.index),
  );
  return [
    pass('SANTRA-LIFE-003', `initialize came first (${at(first)})`),
    early === undefined
      ? pass('SANTRA-CLIENT-004', 'nothing else was requested before the initialize result')
      : fail(
          'SANTRA-CLIENT-004',
          `${String(early.message.method)} was sent before the initialize result (${at(early)})`,
        ),
  ];
}

function initializedAfterResult({ transcript }: Exchange): Finding {
  const { requests, answer } = handshake(transcript);
  const sent = located(transcript, 'client').filter((l) => l.message.method === 'initialized');
  if (answer === undefined)
    return notApplicable('SANTRA-CLIENT-005', 'initialize was never answered with a result');
  const first = sent[0];
  const used = requests.find((l) => l.index > answer.index && l.message.method !== 'shutdown');
  if (first === undefined)
    return used === undefined
      ? notApplicable(
          'SANTRA-CLIENT-005',
          'the client ended the connection after initialize without using it',
        )
      : fail(
          'SANTRA-CLIENT-005',
          `${String(used.message.method)} was sent (${at(used)}) but initialized never was`,
        );
  if (first.index < answer.index)
    return fail('SANTRA-CLIENT-005', `initialized came before the initialize result (${at(first)})`);
  if (sent.length > 1) return fail('SANTRA-CLIENT-005', `initialized was sent ${sent.length} times`);
  const before = requests.find((l) => l.index > answer.index && l.index < first.index);
  if (before !== undefined)
    return fail(
      'SANTRA-CLIENT-005',
      `${String(before.message.method)} was sent before initialized (${at(before)})`,
    );
  return pass('SANTRA-CLIENT-005', `initialized followed the result (${at(first)})`);
}

function idsNotReused({ transcript }: Exchange): Finding {
  const open: unknown[] = [];
  const problems: string[] = [];
  for (const entry of transcript) {
    const m = asMessage(entry);
    if (m === undefined) continue;
    if (entry.from === 'client' && isRequest(m)) {
      if (open.some((id) => sameId(id, m.id)))
        problems.push(
          `${String(m.method)} reuses id ${JSON.stringify(m.id)} while it is unanswered (at ${entry.at} ms)`,
        );
      open.push(m.id);
    } else if (entry.from === 'server' && isResponse(m)) {
      const index = open.findIndex((id) => sameId(id, m.id));
      if (index !== -1) open.splice(index, 1);
    }
  }
  return fromProblems('SANTRA-MSG-008', problems, 'no id was reused while pending');
}

/** The server's requests of `method`, each with the client's responses and whether it was cancelled. */
export function serverRequests(transcript: WireEntry[], method?: string) {
  const server = located(transcript, 'server');
  const client = located(transcript, 'client');
  return server
    .filter((l) => isRequest(l.message) && (method === undefined || l.message.method === method))
    .map((request) => ({
      request,
      responses: client.filter((l) => isResponse(l.message) && sameId(l.message.id, request.message.id)),
      cancelled: server.some(
        (l) =>
          l.message.method === '$/cancelRequest' &&
          isObject(l.message.params) &&
          sameId(l.message.params.id, request.message.id),
      ),
    }));
}

function answers(
  { transcript }: Exchange,
  method: 'approve' | 'ask',
  requirement: 'SANTRA-CLIENT-006' | 'SANTRA-CLIENT-007',
): Finding[] {
  const requests = serverRequests(transcript, method);
  if (requests.length === 0)
    return [notApplicable(requirement, `the server sent no ${method} request in this scenario`)];
  const problems: string[] = [];
  const resultType = method === 'approve' ? 'ApproveResult' : 'AskResult';
  for (const { request, responses, cancelled } of requests) {
    const id = JSON.stringify(request.message.id);
    if (responses.length === 0 && !cancelled)
      problems.push(`${method} ${id} (${at(request)}) was never answered`);
    if (responses.length > 1) problems.push(`${method} ${id} was answered ${responses.length} times`);
    for (const { message, entry } of responses) {
      const found = Object.hasOwn(message, 'error')
        ? validateDefinition('ResponseError', message.error, 'error')
        : validateDefinition(resultType, message.result, 'result');
      problems.push(...found.map((p) => `${method} ${id}: ${p} (at ${entry.at} ms)`));
    }
  }
  return [
    fromProblems(requirement, problems, `${requests.length} ${method} request(s), each answered validly`),
  ];
}

function idsAsWritten({ transcript }: Exchange): Finding[] {
  const special = serverRequests(transcript).filter(
    ({ request }) => request.message.id === 0 || typeof request.message.id === 'string',
  );
  if (special.length === 0)
    return [
      notApplicable('SANTRA-CLIENT-008', 'no server request had id 0 or a string id'),
      notApplicable('SANTRA-MSG-007', 'no server request had id 0 or ""'),
    ];
  const lost: string[] = [];
  const changed: string[] = [];
  const answered = located(transcript, 'client').filter((l) => isResponse(l.message));
  for (const { request, responses, cancelled } of special) {
    const id = request.message.id;
    const name = `${String(request.message.method)} ${JSON.stringify(id)}`;
    const loose = answered.filter((l) => l.message.id !== id && looselyEqual(l.message.id, id));
    for (const l of loose) {
      const problem = `${name} was answered with id ${JSON.stringify(l.message.id)} (${at(l)})`;
      if (l.message.id === null || l.message.id === undefined) lost.push(problem);
      else changed.push(problem);
    }
    if (responses.length === 0 && loose.length === 0 && !cancelled)
      changed.push(`${name} was never answered`);
    for (const l of responses)
      if (l.message.id !== id)
        changed.push(`${name} was answered with id ${JSON.stringify(l.message.id)} (${at(l)})`);
  }
  const ids = special.map((s) => JSON.stringify(s.request.message.id)).join(', ');
  const falsy = special.filter(({ request }) => request.message.id === 0 || request.message.id === '');
  return [
    fromProblems('SANTRA-CLIENT-008', [...lost, ...changed], `answered ${ids} with the ids as written`),
    falsy.length === 0
      ? notApplicable('SANTRA-MSG-007', 'no server request had id 0 or ""')
      : fromProblems(
          'SANTRA-MSG-007',
          lost,
          `took ${falsy.map((s) => JSON.stringify(s.request.message.id)).join(', ')} for request ids`,
        ),
  ];
}

/** An answer that lost the id's type or truthiness: null, absent, or `"0"` for `0`. */
function looselyEqual(a: unknown, b: unknown): boolean {
  return a === null || a === undefined || sameId(a, b);
}

function shutdownOf(transcript: WireEntry[]) {
  const shutdown = located(transcript, 'client').find(
    (l) => l.message.method === 'shutdown' && isRequest(l.message),
  );
  const result =
    shutdown === undefined
      ? undefined
      : located(transcript, 'server').find(
          (l) => isResponse(l.message) && sameId(l.message.id, shutdown.message.id),
        );
  return { shutdown, result };
}

function shutdownBeforeEnd({ transcript, ending }: Exchange): Finding {
  const { shutdown } = shutdownOf(transcript);
  if (ending === 'deadline')
    return fail(
      'SANTRA-CLIENT-011',
      `the client did not end the connection before the scenario's time limit${shutdown === undefined ? ' and never sent shutdown' : ''}`,
    );
  if (shutdown === undefined)
    return fail(
      'SANTRA-CLIENT-011',
      `the connection ended (${ending.replaceAll('_', ' ')}) without shutdown`,
    );
  return pass(
    'SANTRA-CLIENT-011',
    `shutdown ${at(shutdown)}, then the connection ended (${ending.replaceAll('_', ' ')})`,
  );
}

function nothingAfterShutdown({ transcript }: Exchange): Finding {
  const { shutdown } = shutdownOf(transcript);
  if (shutdown === undefined) return notApplicable('SANTRA-CLIENT-012', 'the client never sent shutdown');
  const later = located(transcript, 'client').filter(
    (l) =>
      l.index > shutdown.index &&
      (isRequest(l.message) || isNotification(l.message)) &&
      l.message.method !== 'exit',
  );
  return fromProblems(
    'SANTRA-CLIENT-012',
    later.map((l) => `${String(l.message.method)} after shutdown (${at(l)})`),
    'only exit followed shutdown',
  );
}

function exitAfterShutdownResult({ transcript }: Exchange): Finding {
  const { shutdown, result } = shutdownOf(transcript);
  if (shutdown === undefined) return notApplicable('SANTRA-CLIENT-013', 'the client never sent shutdown');
  const exit = located(transcript, 'client').find((l) => l.message.method === 'exit');
  if (exit === undefined)
    return fail('SANTRA-CLIENT-013', 'the client closed the connection after shutdown without sending exit');
  if (result === undefined || exit.index < result.index)
    return fail('SANTRA-CLIENT-013', `exit (${at(exit)}) was sent before the shutdown result`);
  return pass('SANTRA-CLIENT-013', `exit ${at(exit)}, after the shutdown result`);
}

function declineCodes({ transcript }: Exchange): Finding[] {
  return (
    [
      ['approve', 'SANTRA-APPROVE-011'],
      ['ask', 'SANTRA-ASK-005'],
    ] as const
  ).map(([method, requirement]) => {
    const errors = serverRequests(transcript, method).flatMap(({ request, responses }) =>
      responses
        .filter((l) => isObject(l.message.error))
        .map((l) => ({ request, error: l.message.error as Record<string, unknown> })),
    );
    if (errors.length === 0) return notApplicable(requirement, `the client declined no ${method}`);
    const problems = errors
      .filter(
        ({ error }) =>
          error.code !== JsonRpcErrorCodes.RequestFailed && error.code !== JsonRpcErrorCodes.RequestCancelled,
      )
      .map(
        ({ request, error }) =>
          `${method} ${JSON.stringify(request.message.id)} was declined with code ${JSON.stringify(error.code)} (${JSON.stringify(error.message)}), not RequestFailed ${JsonRpcErrorCodes.RequestFailed}`,
      );
    return fromProblems(
      requirement,
      problems,
      `${errors.length} decline(s), each RequestFailed or RequestCancelled`,
    );
  });
}

function waitsForCancelledPrompt({ transcript }: Exchange): Finding {
  const client = located(transcript, 'client');
  const prompts = client.filter((l) => l.message.method === 'prompt' && isRequest(l.message));
  const cancelled = prompts.filter(({ message }) =>
    client.some(
      (l) =>
        l.message.method === '$/cancelRequest' &&
        isObject(l.message.params) &&
        sameId(l.message.params.id, message.id),
    ),
  );
  if (cancelled.length === 0) return notApplicable('SANTRA-CLIENT-014', 'the client cancelled no prompt');
  const { shutdown } = shutdownOf(transcript);
  const server = located(transcript, 'server');
  const problems = cancelled.flatMap((prompt) => {
    const answer = server.find((l) => isResponse(l.message) && sameId(l.message.id, prompt.message.id));
    if (answer === undefined)
      return [`prompt ${JSON.stringify(prompt.message.id)} was cancelled and never answered`];
    return shutdown !== undefined && shutdown.index < answer.index
      ? [`shutdown (${at(shutdown)}) came before the cancelled prompt's response (${at(answer)})`]
      : [];
  });
  return fromProblems(
    'SANTRA-CLIENT-014',
    problems,
    'the cancelled prompt was answered before the client ended',
  );
}

function idAndMethodFirst({ transcript }: Exchange): Finding {
  const requests = located(transcript, 'client').filter(
    (l) => isRequest(l.message) && Object.hasOwn(l.message, 'params'),
  );
  if (requests.length === 0)
    return notApplicable('SANTRA-FRAME-012', 'the client sent no request with params');
  const problems = requests
    .filter(({ message }) => {
      const keys = Object.keys(message);
      return keys.indexOf('params') < Math.max(keys.indexOf('id'), keys.indexOf('method'));
    })
    .map(
      (l) => `${String(l.message.method)} wrote its keys as ${Object.keys(l.message).join(', ')} (${at(l)})`,
    );
  return fromProblems('SANTRA-FRAME-012', problems, 'every request wrote id and method before params');
}

function unknownServerRequests({ transcript }: Exchange): Finding {
  const unknown = serverRequests(transcript).filter(
    ({ request }) => !METHODS.has(String(request.message.method)),
  );
  if (unknown.length === 0)
    return notApplicable('SANTRA-CLIENT-015', 'the server sent no request of an unknown method');
  const problems = unknown.flatMap(({ request, responses }) => {
    const name = `${String(request.message.method)} ${JSON.stringify(request.message.id)}`;
    if (responses.length === 0) return [`${name} was never answered`];
    return responses
      .filter((l) => !isObject(l.message.error))
      .map((l) => `${name} was answered with a result, not an error (${at(l)})`);
  });
  return fromProblems('SANTRA-CLIENT-015', problems, 'each unknown request got an error response');
}
