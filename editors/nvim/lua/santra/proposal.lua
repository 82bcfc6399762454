-- The file a change waiting for approval would write (protocol §7.3.2), rebuilt here so the user
-- can see it whole and edit it. `approve` carries the diff, not the new text: the proposal is the
-- text Santra read (santra.buffers) with the diff's hunks applied. Every context and removed line
-- of a hunk is checked against that text first, so a proposal is rebuilt exactly or not at all —
-- a control character the diff shows made visible, or a file changed since Santra read it, makes
-- it refuse, and the approval is then answered as a whole.
local M = {}

--- `text` as lines without their endings, the ending ('\n' or '\r\n') and whether the last line
--- has one. A text whose every line ends with CRLF is shown, and rebuilt, without the CR (as the
--- server's diff shows it).
function M.split(text)
  local crlf = text:find('\n', 1, true) ~= nil and text:gsub('\r\n', ''):find('\n', 1, true) == nil
  local ending = crlf and '\r\n' or '\n'
  local lines = text == '' and {} or vim.split(text, ending, true)
  local final = true
  if #lines > 0 then
    final = lines[#lines] == ''
    if final then
      table.remove(lines)
    end
  end
  return lines, ending, final
end

--- Whether the new side of `unified` ends without a newline: nil when the diff does not say (the
--- end of the file is not in a hunk, so it ends as before).
local function new_final(unified)
  local previous, final = nil, nil
  for _, line in ipairs(vim.split(unified or '', '\n', true)) do
    if line == '\\ No newline at end of file' and previous ~= nil then
      local mark = previous:sub(1, 1)
      if mark == '+' or mark == ' ' then
        final = false
      elseif mark == '-' and final == nil then
        -- Only the old side lacked it: the proposal adds the final newline.
        final = true
      end
    end
    previous = line
  end
  return final
end

--- The hunk `hunk` applied to `base` (lines) from line `at` on, into `out`: the next line of
--- `base` to copy, or nil and why the hunk does not fit.
local function apply(base, at, hunk, out)
  local start = hunk.oldLines == 0 and hunk.oldStart + 1 or hunk.oldStart
  if start < at or start > #base + 1 then
    return nil, string.format('hunk @@ -%d,%d does not fit the file', hunk.oldStart, hunk.oldLines)
  end
  vim.list_extend(out, base, at, start - 1)
  at = start
  for _, line in ipairs(hunk.lines) do
    if line.type ~= 'added' then
      if base[at] ~= line.text then
        return nil, string.format('line %d is not what the diff shows', at)
      end
      at = at + 1
    end
    if line.type ~= 'removed' then
      table.insert(out, line.text)
    end
  end
  return at
end

--- The proposal of the `file_change` request `params` rebuilt on `base`, the text Santra read
--- ('' for a file it creates), without the hunks `dropped` (id → true) if given:
--- { lines, ending, final, base = { lines, final } }, or nil and why it cannot be rebuilt.
function M.rebuild(params, base, dropped)
  dropped = dropped or {}
  local diff = params.diff or {}
  local hunks = diff.hunks or {}
  if params.operation ~= 'create' and params.operation ~= 'modify' then
    return nil, 'only a file created or modified can be edited'
  end
  if #hunks == 0 then
    return nil, 'the diff has no lines to edit (a binary file, or one too large to show)'
  end
  local lines, ending, final = M.split(base)
  local out, at = {}, 1
  for _, hunk in ipairs(hunks) do
    if not (hunk.id ~= nil and dropped[hunk.id]) then
      local why
      at, why = apply(lines, at, hunk, out)
      if at == nil then
        return nil, why .. ' (the file changed since Santra read it, or holds control characters)'
      end
    end
  end
  vim.list_extend(out, lines, at, #lines)
  -- Only the last hunk can reach the end of the file, and say how the proposal ends there.
  local last = hunks[#hunks]
  local ends = not (last.id ~= nil and dropped[last.id]) and new_final(diff.unifiedDiff) or nil
  if ends == nil then
    ends = params.operation == 'create' or final
  end
  return { lines = out, ending = ending, final = ends, base = { lines = lines, final = final } }
end

--- `lines` as the text of a file: joined with `ending`, with a final one when `final`; none for
--- no lines.
function M.join(lines, ending, final)
  if #lines == 0 then
    return ''
  end
  return table.concat(lines, ending) .. (final and ending or '')
end

--- The ids of the hunks of `params` kept (`dropped`: id → true), in order.
function M.kept(params, dropped)
  local ids = {}
  for _, hunk in ipairs(params.diff and params.diff.hunks or {}) do
    if hunk.id ~= nil and not dropped[hunk.id] then
      table.insert(ids, hunk.id)
    end
  end
  return ids
end

--- Whether each hunk of `params` carries an id, so an answer can name the ones kept (a server
--- before 0.3.0 sends none and takes no `hunks`).
function M.has_ids(params)
  local hunks = params.diff and params.diff.hunks or {}
  for _, hunk in ipairs(hunks) do
    if hunk.id == nil then
      return false
    end
  end
  return #hunks > 0
end

return M
