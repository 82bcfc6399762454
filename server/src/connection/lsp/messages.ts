/**
 * `window/showMessage`, the notification. vscode-languageserver's `window.show…Message` always
 * sends the request `window/showMessageRequest` (buttons or not), which editors without it —
 * Helix up to 25.07 — answer with an error and never show; a notification every editor shows.
 */
import type { Connection } from 'vscode-languageserver';
import { MessageType, ShowMessageNotification } from 'vscode-languageserver-protocol';

export type Level = 'error' | 'warning' | 'info';

const TYPES: Record<Level, MessageType> = {
  error: MessageType.Error,
  warning: MessageType.Warning,
  info: MessageType.Info,
};

export function showMessage(connection: Connection, level: Level, message: string): void {
  void connection.sendNotification(ShowMessageNotification.type, { type: TYPES[level], message });
}
