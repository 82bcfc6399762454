/**
 * `model/list`, `config/setup`, `agents/list` and `model/set`: which models and agents a prompt may
 * use, a provider set up from the client (config-setup.ts), and the model a session (or the
 * connection, without one) uses from now on.
 */
import { BUILTIN_AGENTS } from '../agent/builtin-agents.ts';
import { loadCustomAgents } from '../agent/custom-agents.ts';
import { listModels, selectModel } from '../agent/model-selection.ts';
import { loadConfig } from '../config/config.ts';
import type { Redactor } from '../support/log.ts';
import { openIdleSession } from '../sessions/occupancy.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import { setupConfig } from './config-setup.ts';
import type { RequestHandlers } from './contract.ts';
import type { RuntimeState } from './state.ts';

type ModelHandlers = Required<
  Pick<RequestHandlers, 'model/list' | 'config/setup' | 'agents/list' | 'model/set'>
>;

export function modelHandlers(
  state: RuntimeState,
  setup: { env: NodeJS.ProcessEnv; redactor: Redactor },
): ModelHandlers {
  return {
    async 'model/list'(params) {
      const { config, sessions } = state.ready();
      // An unknown session is refused (UnknownSession), as model/set refuses it.
      const session =
        params?.sessionId === undefined ? undefined : (await sessions.open(params.sessionId)).session;
      const current = session?.model ?? state.defaultModel ?? config.model;
      const selection = current === '' ? undefined : selectModel(config, current);
      return {
        current: selection?.ok ? selection.ref : current,
        models: listModels(config),
        ...(state.configError === undefined ? {} : { configProblem: state.configError }),
      };
    },
    'config/setup': (params) =>
      setupConfig(params, {
        ...setup,
        current: () => state.ready().config,
        reload: async () => state.prepared(await loadConfig(setup.env)),
        use: (config, model) => {
          state.replaceConfig(config);
          state.defaultModel = model;
        },
      }),
    async 'agents/list'() {
      const { workspaceRoot } = state.ready();
      const custom = await loadCustomAgents(workspaceRoot, {
        tools: (await state.tools()).every,
        builtInIds: BUILTIN_AGENTS.map((agent) => agent.id),
      });
      return {
        agents: [...BUILTIN_AGENTS, ...custom.agents].map((agent) => ({
          id: agent.id,
          name: agent.name,
          description: agent.description,
          tools: agent.toolNames,
          canBeSpawned: agent.canBeSpawned,
          source: agent.source,
        })),
        problems: custom.problems,
      };
    },
    async 'model/set'(params) {
      const { config, sessions } = state.configured();
      const session =
        params.sessionId === undefined ? undefined : await openIdleSession(sessions, params.sessionId);
      const selection = selectModel(config, params.model);
      if (!selection.ok) throw new ProtocolFault('ModelUnavailable', selection.message);
      if (session !== undefined) {
        session.model = selection.ref;
        session.record({ type: 'model', model: selection.ref, at: new Date().toISOString() });
      } else state.defaultModel = selection.ref;
      return { model: selection.ref };
    },
  };
}
