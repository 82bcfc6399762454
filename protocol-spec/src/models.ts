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
