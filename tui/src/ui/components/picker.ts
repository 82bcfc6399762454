/**
 * A list to choose from with ↑/↓ and Enter (Esc closes): the ModelSelector (models grouped by
 * provider, with context size and prices), the session list of /resume, the setup's steps. It
 * shows a window of the list around the cursor, never more than `maxRows` rows.
 */
import { Box, Text, useInput } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import { KEYS, pressed } from '../keybindings.ts';
import type { PickerItem } from '../ui-state.ts';
import { visibleText } from '../live-text.ts';
import { useKeyState } from './key-state.ts';

export interface PickerProps {
  title: string;
  items: readonly PickerItem[];
  /** The value the cursor starts on (the current model, a provider's default); else the first. */
  selected?: string;
  width: number;
  maxRows: number;
  onPick: (value: string) => void;
  onClose?: () => void;
  isActive?: boolean;
}

export function Picker({
  title,
  items,
  selected,
  width,
  maxRows,
  onPick,
  onClose,
  isActive = true,
}: PickerProps): ReactNode {
  const position = useKeyState(
    Math.max(
      0,
      items.findIndex((item) => item.value === selected),
    ),
  );
  const cursor = position.value;
  // Rows: borders (2), title, hint; each item one row, plus a row for each group heading.
  const room = Math.max(1, maxRows - 4);
  const page = Math.max(1, room - 1);
  useInput(
    (input, key) => {
      const at = position.get();
      if (pressed(KEYS.up, input, key)) position.set((at - 1 + items.length) % items.length);
      else if (pressed(KEYS.down, input, key)) position.set((at + 1) % items.length);
      else if (pressed(KEYS.pageUp, input, key)) position.set(Math.max(0, at - page));
      else if (pressed(KEYS.pageDown, input, key)) position.set(Math.min(items.length - 1, at + page));
      else if (pressed(KEYS.pick, input, key)) {
        const item = items[at];
        if (item !== undefined) onPick(item.value);
      } else if (pressed(KEYS.back, input, key)) onClose?.();
    },
    { isActive },
  );
  const first = Math.max(0, Math.min(cursor - Math.floor(room / 2), items.length - room));
  const rows: ReactNode[] = [];
  let group: string | undefined;
  for (let index = first; index < items.length && rows.length < room; index++) {
    const item = items[index] as PickerItem;
    if (item.group !== undefined && item.group !== group) {
      group = item.group;
      if (rows.length >= room - 1) break;
      rows.push(h(Text, { key: `g${index}`, bold: true, dimColor: true }, visibleText(item.group)));
    }
    const active = index === cursor;
    rows.push(
      h(
        Text,
        { key: `i${index}`, wrap: 'truncate-end', color: active ? 'cyan' : undefined },
        `${active ? '›' : ' '} ${visibleText(item.label)}`,
        item.detail === undefined ? '' : h(Text, { dimColor: true }, `  ${visibleText(item.detail)}`),
      ),
    );
  }
  return h(
    Box,
    { flexDirection: 'column', borderStyle: 'round', borderColor: 'cyan', paddingX: 1, width },
    h(Text, { bold: true }, title),
    ...rows,
    h(
      Text,
      { dimColor: true },
      `${cursor + 1} of ${items.length} · ↑/↓ move · PgUp/PgDn page · Enter choose${onClose === undefined ? '' : ' · Esc close'}`,
    ),
  );
}
