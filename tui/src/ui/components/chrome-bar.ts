/**
 * The line under the composer: project, model, session, tokens (and the share read from the
 * provider's cache) and cost so far — while a run goes on, its cost as it grows and the budget it
 * spends from.
 */
import { Box, Text } from 'ink';
import { createElement as h, memo, type ReactNode } from 'react';
import type { BudgetStatus, PermissionMode, Usage } from '#protocol';
import { cachedShare, formatCost, formatTokens } from '../command-text.ts';
import { keyOf } from '../keybindings.ts';

export interface ChromeBarProps {
  project: string;
  model: string | undefined;
  /** While a run goes on: the model answering, when not `model` (a fallback model, §8.4). */
  answeringModel?: string;
  sessionId: string | undefined;
  usage: Usage | undefined;
  costUsd: number;
  /** The budget a running run spends from, when one is in force. */
  budget?: BudgetStatus | undefined;
  /** The mode the next message is sent in; absent or `default`: nothing is shown for it. */
  permissionMode?: PermissionMode;
  connection: 'starting' | 'setup' | 'ready' | 'failed';
  /** A hint that replaces the right side for a moment (e.g. "press Ctrl+C again to exit"). */
  hint?: string | undefined;
  width: number;
}

/** Drawn again only when a prop changes, not with every frame of a streaming answer. */
export const ChromeBar = memo(function ChromeBar(props: ChromeBarProps): ReactNode {
  const { usage } = props;
  const parts = [
    props.project,
    props.connection === 'starting'
      ? 'starting the server…'
      : props.connection === 'failed'
        ? 'server stopped'
        : props.answeringModel !== undefined
          ? `${props.answeringModel} (fallback for ${props.model ?? 'the model'})`
          : (props.model ?? 'no model'),
    props.sessionId === undefined
      ? 'new session'
      : `session ${props.sessionId.replace(/^ses_/, '').slice(0, 8)}`,
    usage === undefined
      ? '0 tokens'
      : `${formatTokens(usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens)} in${cached(usage)} / ${formatTokens(usage.outputTokens)} out`,
    formatCost(props.costUsd),
    ...(props.budget === undefined
      ? []
      : [`budget ${formatCost(props.budget.spentUsd)}/${formatCost(props.budget.limitUsd)}`]),
  ];
  const mode = props.hint === undefined ? modeLabel(props.permissionMode) : undefined;
  return h(
    Box,
    { width: props.width },
    ...(mode === undefined
      ? []
      : // Never cut: the rest of the bar gives way to it.
        [h(Box, { key: 'mode', flexShrink: 0 }, h(Text, { color: mode.color }, `${mode.text} · `))]),
    h(
      Text,
      {
        wrap: 'truncate-end',
        dimColor: props.hint === undefined,
        color: props.hint === undefined ? undefined : 'yellow',
      },
      props.hint ?? parts.join(' · '),
    ),
  );
});

/** The mode first on the bar, in a colour of its own, so it is seen before a change is made. */
function modeLabel(mode: PermissionMode | undefined): { text: string; color: string } | undefined {
  const cycle = `${keyOf('cycleMode')} to cycle`;
  switch (mode) {
    case undefined:
    case 'default':
      return undefined;
    case 'acceptEdits':
      return { text: `⏵⏵ accept edits on (${cycle})`, color: 'green' };
    case 'plan':
      return { text: `⏸ plan mode on (${cycle})`, color: 'cyan' };
    case 'bypassPermissions':
      return { text: `⏵⏵ bypass permissions on (${cycle})`, color: 'red' };
    default: {
      const exhaustive: never = mode;
      throw new Error(`unknown mode ${String(exhaustive)}`);
    }
  }
}

function cached(usage: Usage): string {
  const share = cachedShare(usage);
  return share === '' ? '' : ` (${share})`;
}
