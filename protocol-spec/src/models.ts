import * as z from 'zod';
import { named } from './registry.ts';

export const ModelEntry = named(
  'ModelEntry',
  'A model the server can use.',
  z.object({
    ref: z.string().describe('The reference to pass as `model`: `provider/model`.'),
    provider: z.string(),
    id: z.string().describe('Model id as the provider names it.'),
    contextWindow: z.number().int().positive(),
    configured: z.boolean().describe('Whether its provider has the key or endpoint it needs.'),
    inputUsdPerMTok: z
      .number()
      .nonnegative()
      .optional()
      .describe('Price of a million input tokens, when known.'),
    outputUsdPerMTok: z
      .number()
      .nonnegative()
      .optional()
      .describe('Price of a million output tokens, when known.'),
  }),
);
export type ModelEntry = z.infer<typeof ModelEntry>;

/** §model/list */
export const ModelListParams = named(
  'ModelListParams',
  'Params of `model/list`. Every field is optional; the params may be omitted.',
  z
    .object({
      sessionId: z
        .string()
        .min(1)
        .optional()
        .describe(
          'Report this session’s current model instead of the default. A session that is neither open nor saved is refused with UnknownSession.',
        ),
    })
    .optional(),
);

export const ModelListResult = named(
  'ModelListResult',
  'Result of `model/list`: the current model and every known one.',
  z.object({
    current: z
      .string()
      .describe('The model a prompt would use now (`provider/model`), or "" when none is configured.'),
    models: z.array(ModelEntry),
    configProblem: z
      .string()
      .optional()
      .describe(
        "What is wrong with the server's config file (the file, the line, the field, what to write instead), while it is: prompts are refused until it is fixed, and the server reads the file again on the next request after it changed. The rest (sessions, models, agents) works with what can be used of it. Since 0.3.0.",
      ),
  }),
);

/** §model/set */
export const ModelSetParams = named(
  'ModelSetParams',
  'Params of `model/set`.',
  z.object({
    model: z.string().min(1).describe('`provider/model`, or a model id the catalog knows.'),
    sessionId: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Switch only this session (from its next prompt on). Absent: the default for new sessions of this connection.',
      ),
  }),
);
export type ModelSetParams = z.infer<typeof ModelSetParams>;

export const ModelSetResult = named(
  'ModelSetResult',
  'Result of `model/set`: the model now in use, as `provider/model`.',
  z.object({ model: z.string() }),
);

/** §config/setup */
export const ConfigSetupParams = named(
  'ConfigSetupParams',
  "Params of `config/setup`: what a first-run setup asks the user. The key is written to the user's config file (mode 0600) and never appears in any message the server sends or logs.",
  z.object({
    provider: z.string().min(1).describe('A provider of `model/list` (`anthropic`, `openai`, `groq`, …).'),
    apiKey: z
      .string()
      .min(1)
      .optional()
      .describe('Its API key. Absent: keep what the config has (a local server such as Ollama needs none).'),
    model: z.string().min(1).describe('The default model from now on, as `provider/model` of that provider.'),
  }),
);
export type ConfigSetupParams = z.infer<typeof ConfigSetupParams>;

export const ConfigSetupResult = named(
  'ConfigSetupResult',
  'Result of `config/setup`: saved, and in use for the next prompt of this connection.',
  z.object({
    file: z.string().describe('The config file written, absolute.'),
    model: z.string().describe('The default model now, as `provider/model`.'),
  }),
);
