/**
 * First run: no model can be used (no key in the environment or the config). The SetupFlow asks
 * for the provider, its key (masked) and the model, then hands the choice to be written to the
 * config file (0600) and santra continues with a new server that reads it.
 */
import { Box, Text, useInput, usePaste } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import { KEYS, keyOf, pressed } from '../keybindings.ts';
import { edit, EMPTY_EDITOR, type EditorState, insert } from '../line-editor.ts';
import type { SetupState } from '../ui-state.ts';
import { useKeyState } from './key-state.ts';
import { SingleLine } from './line-field.ts';
import { Picker } from './picker.ts';
import { UNKNOWN_CONTEXT } from '../command-text.ts';
import type { ModelEntry } from '#protocol';

/** What the first-run setup asks; the server saves it (`config/setup`). */
export interface SetupChoice {
  provider: string;
  /** Empty: no key (a local endpoint such as Ollama needs none). */
  apiKey: string;
  /** `provider/model`. */
  model: string;
}

/** Providers that run on the user's machine and need no key. */

export interface SetupFlowProps {
  providers: SetupState['providers'];
  error?: string;
  width: number;
  maxRows: number;
  onDone: (choice: SetupChoice) => void;
}

type Step =
  | { step: 'provider' }
  | { step: 'key'; provider: string }
  | { step: 'model'; provider: string; apiKey: string };

export function SetupFlow({ providers, error, width, maxRows, onDone }: SetupFlowProps): ReactNode {
  const at = useKeyState<Step>({ step: 'provider' });
  const field = useKeyState<EditorState>(EMPTY_EDITOR);
  const step = at.value;
  const key = field.value;
  /** Whether the provider asks for a key: the server says (ProviderInfo.needsKey). */
  const needsKey = (id: string) => providers.find((provider) => provider.id === id)?.needsKey !== false;
  const keyActive = step.step === 'key';
  usePaste((text) => field.set(insert(field.get(), text.trim())), { isActive: keyActive });
  useInput(
    (input, k) => {
      const now = at.get();
      if (now.step !== 'key') return;
      const typed = field.get().text.trim();
      const enter = (apiKey: string) => {
        if (apiKey === '' && needsKey(now.provider)) return;
        at.set({ step: 'model', provider: now.provider, apiKey });
      };
      if (pressed(KEYS.back, input, k)) at.set({ step: 'provider' });
      else if (pressed(KEYS.submit, input, k)) enter(typed);
      else if (input.length > 1 && !k.ctrl && !k.meta && input.includes('\r')) {
        // The key and Enter in one chunk (typed fast, or pasted where bracketed paste is off): the
        // Enter is an Enter, as in the composer, not part of the key.
        const [line = ''] = input.split(/\r\n?/);
        enter(insert(field.get(), line).text.trim());
      } else {
        const next = edit(field.get(), input, k, false);
        if (next !== undefined) field.set(next);
      }
    },
    { isActive: keyActive },
  );

  const intro = h(
    Box,
    { flexDirection: 'column', marginBottom: 1 },
    h(Text, { bold: true, color: 'cyan' }, 'Welcome to santra'),
    h(
      Text,
      null,
      'No model can be used yet: choose a provider, give its key, and pick a model. They are saved in your santra config file (mode 0600).',
    ),
    error === undefined ? null : h(Text, { color: 'red' }, error),
  );
  const room = Math.max(5, maxRows - 4);
  switch (step.step) {
    case 'provider':
      return h(
        Box,
        { flexDirection: 'column' },
        intro,
        h(Picker, {
          title: 'Provider',
          items: providers.map((provider) => ({
            label: provider.id,
            detail: `${modelCount(provider.models)}${provider.needsKey ? '' : ', no key needed'}`,
            value: provider.id,
          })),
          width,
          maxRows: room,
          onPick: (provider) => {
            field.set(EMPTY_EDITOR);
            at.set({ step: 'key', provider });
          },
        }),
      );
    case 'key':
      return h(
        Box,
        { flexDirection: 'column' },
        intro,
        h(
          Box,
          { borderStyle: 'round', borderColor: 'cyan', paddingX: 1, flexDirection: 'column', width },
          h(Text, { bold: true }, `API key for ${step.provider}`),
          h(Box, null, h(Text, null, 'Key: '), h(SingleLine, { state: key, mask: true })),
          h(
            Text,
            { dimColor: true },
            `${keyOf('submit')}: continue${needsKey(step.provider) ? '' : ' (empty: no key)'} · ${keyOf('back')}: back · the key is masked and never shown`,
          ),
        ),
      );
    case 'model': {
      const provider = providers.find((candidate) => candidate.id === step.provider);
      const models = provider?.models ?? [];
      return h(
        Box,
        { flexDirection: 'column' },
        intro,
        h(Picker, {
          title: `Model (${step.provider})`,
          items: models.map((model) => ({
            label: model.id,
            detail: `${model.contextWindow === UNKNOWN_CONTEXT ? 'its default model; any model the server serves works (/model)' : `${model.contextWindow.toLocaleString('en')} tokens of context`}${
              model.inputUsdPerMTok === undefined
                ? ''
                : `, $${model.inputUsdPerMTok}/$${model.outputUsdPerMTok ?? '?'} per Mtok`
            }`,
            value: model.ref,
          })),
          ...(provider?.defaultModel === undefined ? {} : { selected: provider.defaultModel }),
          width,
          maxRows: room,
          onPick: (model) => onDone({ provider: step.provider, apiKey: step.apiKey, model }),
          onClose: () => at.set({ step: 'key', provider: step.provider }),
        }),
      );
    }
    default: {
      const exhaustive: never = step;
      throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
    }
  }
}

function modelCount(models: readonly ModelEntry[]): string {
  if (models.length === 1 && models[0]?.contextWindow === UNKNOWN_CONTEXT) return 'serves its own models';
  return `${models.length} model${models.length === 1 ? '' : 's'}`;
}
