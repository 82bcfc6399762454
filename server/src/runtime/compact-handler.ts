/**
 * `session/compact`: the model summarises the older part of a session's conversation and the last
 * turns stay word for word (agent/compaction.ts). The session counts as running meanwhile, so a
 * prompt for it gets SessionBusy instead of adding to a history that is being replaced.
 */
import { compactSession, DEFAULT_KEEP_TURNS } from '../agent/compaction.ts';
import { selectModel } from '../agent/model-selection.ts';
import type { ResolvedConfig } from '../config/config.ts';
import { EMPTY_USAGE, type StreamFn } from '../providers/stream.ts';
import { hold, openIdleSession } from '../sessions/occupancy.ts';
import type { SessionStore } from '../sessions/store.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { Hooks } from '../hooks/hooks.ts';
import { preCompactHooks, type SessionLifecycle } from '../hooks/session-hooks.ts';
import type { RequestHandlers } from './contract.ts';

export function compactHandler(
  ready: () => { sessions: SessionStore; config: ResolvedConfig },
  stream: StreamFn,
  /** The connection's default model (initialize or model/set), for a session that has none. */
  defaultModel: () => string | undefined,
  /** The user's hooks, for PreCompact (trigger `manual`); undefined: none. */
  hooks: () => Promise<Hooks | undefined>,
  /** The sessions begun here: a compacted one's next SessionStart says `compact`. */
  lifecycle: SessionLifecycle,
): Required<Pick<RequestHandlers, 'session/compact'>> {
  return {
    async 'session/compact'(params, { signal }) {
      const { sessions, config } = ready();
      const session = await openIdleSession(sessions, params.sessionId);
      const selection = selectModel(config, session.model ?? defaultModel() ?? config.model);
      if (!selection.ok) throw new ProtocolFault('ModelUnavailable', selection.message);
      const held = hold(session, signal);
      try {
        const userHooks = await hooks();
        if (userHooks !== undefined)
          await preCompactHooks(userHooks, 'manual', '', {
            session,
            transcriptPath: sessions.storage.pathOf?.(session.id) ?? '',
            permissionMode: session.approvals.mode,
            signal: held.signal,
            warn: () => {},
          });
        const result = await compactSession({
          session,
          model: selection.model,
          endpoint: selection.endpoint,
          stream,
          keepTurns: params.keepTurns ?? DEFAULT_KEEP_TURNS,
          maxOutputTokens: config.agent.maxOutputTokens,
          signal: held.signal,
        });
        switch (result.outcome) {
          case 'compacted':
            lifecycle.compacted(session.id);
            return {
              compacted: true,
              messagesBefore: result.messagesBefore,
              messagesAfter: result.messagesAfter,
              usage: result.usage,
              costUsd: result.costUsd,
            };
          case 'too_little':
            return {
              compacted: false,
              messagesBefore: result.messagesBefore,
              messagesAfter: result.messagesBefore,
              usage: EMPTY_USAGE,
              costUsd: 0,
            };
          case 'failed':
            // Cancelled by the client or a shutdown: the connection answers RequestCancelled.
            if (held.signal.aborted) throw new Error('cancelled');
            throw new ProtocolFault(
              'RequestFailed',
              `The session was not compacted: ${result.failure.message} Its history is unchanged.`,
              { retryable: result.failure.retryable, failure: result.failure.kind },
            );
          default: {
            const exhaustive: never = result;
            throw new Error(`unknown compaction result ${JSON.stringify(exhaustive)}`);
          }
        }
      } finally {
        held.release();
      }
    },
  };
}
