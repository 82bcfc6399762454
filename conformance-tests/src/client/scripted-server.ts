/**
 * The scripted server of the client mode: plays one scenario (scenarios.ts) on a pair of streams,
 * checks every frame the client sends, and resolves with the findings and the wire transcript.
 * server-program.ts runs it on stdio as the program a client starts in place of santra-server.
 */
import { PROTOCOL_VERSION } from '#protocol/version';
import { CORE_METHODS } from '../spec/schema.ts';
import { generalChecks } from './checks.ts';
import type { Finding } from './findings.ts';
import { type Ending, ScriptedPeer } from './scripted-peer.ts';
import type { Scenario } from './scenarios.ts';
import type { WireEntry } from './wire.ts';

/** What the scripted server writes to SANTRA_CONFORMANCE_REPORT. */
export interface ScenarioReport {
  scenario: string;
  summary: string;
  /** The client's `clientInfo`, when it sent `initialize`. */
  client: unknown;
  capabilities: unknown;
  unattended: boolean;
  ending: Ending;
  findings: Finding[];
  transcript: WireEntry[];
}

export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

function baseInitializeResult(): Record<string, unknown> {
  return {
    protocolVersion: PROTOCOL_VERSION,
    serverInfo: { name: 'santra-conformance-scripted-server', version: PROTOCOL_VERSION },
    capabilities: {
      methods: [...CORE_METHODS, 'model/list', 'model/set', 'agents/list', 'session/list'],
      phaseTypes: ['status', 'text', 'thinking', 'tool_call', 'tool_result', 'section', 'error', 'complete'],
      providers: [
        {
          id: 'scripted',
          name: 'Scripted',
          configured: true,
          models: [{ id: 'model', contextWindow: 200000 }],
        },
      ],
      limits: { maxMessageBytes: MAX_MESSAGE_BYTES, maxConcurrentRequests: 64 },
    },
  };
}

/** Plays `scenario` on the given streams and resolves with the report once the connection has ended. */
export async function playScenario(
  scenario: Scenario,
  options: {
    input: NodeJS.ReadableStream;
    output: NodeJS.WritableStream;
    unattended: boolean;
    deadlineMs: number;
    onCue: (name: string) => void;
    stop?: AbortSignal;
    /** Gets a provisional report (ending `killed`) as the transcript grows, in case the server is killed. */
    onProgress?: (report: ScenarioReport) => void;
  },
): Promise<ScenarioReport> {
  const base = baseInitializeResult();
  const peer = new ScriptedPeer({
    input: options.input as never,
    output: options.output as never,
    initializeResult: scenario.initializeResult?.(base) ?? base,
    onPrompt: scenario.play,
    onCue: options.onCue,
    deadlineMs: options.deadlineMs,
    ...(options.stop === undefined ? {} : { stop: options.stop }),
    onChange: () => options.onProgress?.(reportOf(scenario, peer, 'killed', options.unattended)),
  });
  return reportOf(scenario, peer, await peer.ended, options.unattended);
}

function reportOf(
  scenario: Scenario,
  peer: ScriptedPeer,
  ending: Ending,
  unattended: boolean,
): ScenarioReport {
  const exchange = { transcript: peer.transcript, ending, maxMessageBytes: MAX_MESSAGE_BYTES };
  return {
    scenario: scenario.name,
    summary: scenario.summary,
    client: peer.clientParams?.clientInfo ?? null,
    capabilities: peer.clientParams?.capabilities ?? null,
    unattended,
    ending,
    findings: [...generalChecks(exchange), ...(scenario.evaluate?.(exchange, { unattended }) ?? [])],
    transcript: peer.transcript,
  };
}
