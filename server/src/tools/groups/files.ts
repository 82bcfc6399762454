import { deleteFileTool } from '../delete-file.ts';
import { findFileTool } from '../find-file.ts';
import { getFileInfoTool } from '../get-file-info.ts';
import { listDirTool } from '../list-dir.ts';
import { moveFileTool } from '../move-file.ts';
import { multiEditTool } from '../multi-edit.ts';
import { readFileTool } from '../read-file.ts';
import { strReplaceTool } from '../str-replace.ts';
import type { Tool } from '../types.ts';
import { writeFileTool } from '../write-file.ts';

/** The nine file tools, looking before changing: read and find, then edit, then create, move and delete. */
export function fileTools(): Tool[] {
  return [
    readFileTool(),
    listDirTool(),
    findFileTool(),
    getFileInfoTool(),
    strReplaceTool(),
    multiEditTool(),
    writeFileTool(),
    moveFileTool(),
    deleteFileTool(),
  ];
}
