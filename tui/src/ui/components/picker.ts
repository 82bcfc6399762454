/**
 * A list to choose from with ↑/↓ and Enter (Esc closes): the ModelSelector (models grouped by
 * provider, with context size and prices), the session list of /resume, the setup's steps. It
 * shows a window of the list around the cursor, never more than `maxRows` rows.
 */
import { Box, Text, useInput } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import { KEYS, keyOf, pressed } from '../keybindings.ts';
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

interface PickerPosition {
  /** What was typed: only the items that match it are listed. */
  filter: string;
  /** The index in the items that match. */
  cursor: number;
}

/**
 * The items that match `filter`: each of its words appears in the item's label, value or group
 * (case-insensitive), so "son 4" finds anthropic/claude-sonnet-4-5.
 */
export function filterItems(items: readonly PickerItem[], filter: string): PickerItem[] {
  const words = filter
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return [...items];
  return items.filter((item) => {
    const text = `${item.group ?? ''} ${item.label} ${item.value}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
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
  const position = useKeyState<PickerPosition>({
    filter: '',
    cursor: Math.max(
      0,
      items.findIndex((item) => item.value === selected),
    ),
  });
  const { filter, cursor } = position.value;
  const shownItems = filterItems(items, filter);
  // Rows: borders (2), title, hint; each item one row, plus a row for each group heading.
  const room = Math.max(1, maxRows - 4);
  const page = Math.max(1, room - 1);
  useInput(
    (input, key) => {
      const now = position.get();
      const matching = filterItems(items, now.filter);
      const count = matching.length;
      const at = now.cursor;
      const move = (cursor: number) => position.set({ ...now, cursor });
      const refilter = (next: string) => position.set({ filter: next, cursor: 0 });
      if (pressed(KEYS.up, input, key)) {
        if (count > 0) move((at - 1 + count) % count);
      } else if (pressed(KEYS.down, input, key)) {
        if (count > 0) move((at + 1) % count);
      } else if (pressed(KEYS.pageUp, input, key)) move(Math.max(0, at - page));
      else if (pressed(KEYS.pageDown, input, key)) move(Math.max(0, Math.min(count - 1, at + page)));
      else if (pressed(KEYS.pick, input, key)) {
        const item = matching[at];
        if (item !== undefined) onPick(item.value);
      } else if (pressed(KEYS.back, input, key)) {
        if (now.filter !== '') refilter('');
        else onClose?.();
      } else if (pressed(KEYS.deleteBack, input, key)) {
        if (now.filter !== '') refilter([...now.filter].slice(0, -1).join(''));
      } else if (!key.ctrl && !key.meta && !key.tab && input !== '') {
        // Letters and their Enter may come in one chunk (typed fast): the Enter chooses.
        const [line = '', ...after] = input.split('\r');
        const filter = now.filter + line.replace(/[\u0000-\u001f\u007f]/g, '');
        if (filter !== now.filter) refilter(filter);
        const first = filterItems(items, filter)[0];
        if (after.length > 0 && first !== undefined) onPick(first.value);
      }
    },
    { isActive },
  );
  const first = Math.max(0, Math.min(cursor - Math.floor(room / 2), shownItems.length - room));
  const rows: ReactNode[] = [];
  let group: string | undefined;
  for (let index = first; index < shownItems.length && rows.length < room; index++) {
    const item = shownItems[index] as PickerItem;
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
  if (shownItems.length === 0)
    rows.push(h(Text, { key: 'none', dimColor: true }, `  nothing matches "${visibleText(filter)}"`));
  const where =
    shownItems.length === 0
      ? `0 of ${items.length}`
      : `${cursor + 1} of ${shownItems.length}${filter === '' ? '' : ` (of ${items.length})`}`;
  const hint = [
    where,
    filter === '' ? 'type to filter' : `${keyOf('back')} clears the filter`,
    `${keyOf('up')}/${keyOf('down')} move`,
    `${keyOf('pageUp')}/${keyOf('pageDown')} page`,
    `${keyOf('pick')} choose`,
    ...(onClose === undefined || filter !== '' ? [] : [`${keyOf('back')} close`]),
  ].join(' · ');
  return h(
    Box,
    { flexDirection: 'column', borderStyle: 'round', borderColor: 'cyan', paddingX: 1, width },
    h(
      Text,
      { wrap: 'truncate-end' },
      h(Text, { bold: true }, title),
      filter === '' ? '' : h(Text, { color: 'cyan' }, `  filter: ${visibleText(filter)}▏`),
    ),
    ...rows,
    h(Text, { dimColor: true, wrap: 'truncate-end' }, hint),
  );
}
