-- The buffers the plugin lends Santra (protocol §7.5, `capabilities.fs`): Santra reads a file the
-- user has loaded from its buffer (`fs/readTextFile`), unsaved changes included, and an approved
-- change of it goes into that buffer as one undoable change and is saved there
-- (`fs/writeTextFile`). A file with no loaded buffer is left to Santra, which uses the disk.
--
-- A buffer Santra read is read again before an approved change is written (the server does so
-- for every text it was lent), so an edit the user makes while the approval is open is seen: the
-- change is computed again on it and asked again, never written over it. What was lent is kept
-- here, so that the approval window can tell the user, and a write that would still land on
-- text Santra has not seen is declined.
--
-- Santra compares texts with what it reads on disk, so a text given or taken here is the file's
-- bytes as Neovim would write them: lines joined with the 'fileformat' line ending, a final one
-- when 'endofline'/'fixendofline' add it. 'fileformat' dos is converted (CRLF); a file Neovim
-- writes in another encoding, with a byte order mark or with CR line endings (mac) is declined,
-- and Santra uses the disk.
local M = {}

local api = vim.api

-- path → the text last lent for it (false: Santra read the disk). The base of the change Santra
-- computes next, and of the approval it shows.
local lent = {}

local function option(buf, name)
  return api.nvim_buf_get_option(buf, name)
end

--- The loaded buffer of the file at `path`, or nil. Santra names files by absolute path with
--- symbolic links resolved; a buffer's name may be a link, so it is resolved too.
function M.find(path)
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) and option(buf, 'buftype') == '' then
      local name = api.nvim_buf_get_name(buf)
      if name ~= '' and (name == path or vim.loop.fs_realpath(name) == path) then
        return buf
      end
    end
  end
  return nil
end

--- How each line of `buf` ends on disk, or nil and why a text cannot stand for its file.
local function line_ending(buf)
  local encoding = option(buf, 'fileencoding')
  if encoding ~= '' and encoding ~= 'utf-8' then
    return nil, "its 'fileencoding' is " .. encoding .. ', not utf-8'
  end
  if option(buf, 'bomb') then
    return nil, 'Neovim writes it with a byte order mark'
  end
  local format = option(buf, 'fileformat')
  if format == 'mac' then
    return nil, "its 'fileformat' is mac (lines end with CR)"
  end
  return format == 'dos' and '\r\n' or '\n'
end

local function ends_with_newline(buf)
  return option(buf, 'endofline') or (option(buf, 'fixendofline') and not option(buf, 'binary'))
end

--- The text of `buf` as saving it would write it. An empty buffer Neovim writes as an empty
--- file (line2byte() is -1 for it), not as one newline.
local function saved_text(buf, ending)
  local lines = api.nvim_buf_get_lines(buf, 0, -1, true)
  local empty = #lines == 1 and lines[1] == '' and api.nvim_buf_call(buf, function()
    return vim.fn.line2byte(2) == -1
  end)
  if empty then
    return ''
  end
  local text = table.concat(lines, ending)
  if ends_with_newline(buf) then
    text = text .. ending
  end
  return text
end

--- The bytes of the file at `path` on disk, or nil.
local function disk_text(path)
  local f = io.open(path, 'rb')
  if f == nil then
    return nil
  end
  local text = f:read('*a')
  f:close()
  return text
end

--- The text of `buf` as Santra is lent it, or nil: its 'fileencoding' or 'fileformat' cannot be
--- given as text, or it is unmodified and the disk holds another text (the file changed on disk
--- and the buffer was not reloaded: the disk is newer).
local function lendable(buf, path)
  local ending = line_ending(buf)
  if ending == nil then
    return nil
  end
  local text = saved_text(buf, ending)
  if not option(buf, 'modified') and text ~= disk_text(path) then
    return nil
  end
  return text
end

--- `fs/readTextFile`: the text of the file at `path` as its buffer holds it, unsaved changes
--- included, or nil when Santra should read the disk; nil and a message when a modified buffer's
--- text cannot be given. An unmodified buffer is lent too when it holds what the disk holds, so
--- that Santra reads it again after an approval and sees what the user typed meanwhile.
function M.read(path)
  lent[path] = false
  local buf = M.find(path)
  if buf == nil then
    return nil
  end
  local ending, why = line_ending(buf)
  if ending == nil and option(buf, 'modified') then
    return nil, string.format('santra.nvim cannot lend its buffer of %s: %s', path, why)
  end
  local text = lendable(buf, path)
  if text ~= nil then
    lent[path] = text
  end
  return text
end

--- Whether the file at `path` changed, as the user sees it, since Santra last read it: nil when
--- not; 'lent' when Santra was lent a text that differs now (Santra reads it again before writing
--- and asks again); 'unlent' when Santra read the disk but a buffer now holds unsaved changes
--- Santra has not seen (an approved change would be computed without them).
function M.changed_since_read(path)
  local buf = M.find(path)
  local base = lent[path]
  if type(base) == 'string' then
    local now = buf and lendable(buf, path) or disk_text(path)
    return now ~= base and 'lent' or nil
  end
  if buf ~= nil and option(buf, 'modified') and line_ending(buf) ~= nil then
    if saved_text(buf, line_ending(buf)) ~= disk_text(path) then
      return 'unlent'
    end
  end
  return nil
end

--- The text Santra would read for the file at `path` now: its buffer's as lent, else the disk's;
--- nil when neither can be had. While changed_since_read() is nil, it is the text the change
--- waiting for approval was computed from (santra.proposal rebuilds the proposal on it).
function M.text(path)
  local buf = M.find(path)
  return buf and lendable(buf, path) or disk_text(path)
end

--- `text` as the lines of a buffer whose lines end with `ending`, and whether it ends with one;
--- nil and a message when another line ending in it cannot be kept.
local function lines_of(text, ending)
  local lines = vim.split(text, ending, true)
  if ending ~= '\n' then
    for _, line in ipairs(lines) do
      if line:find('\n', 1, true) then
        return nil, nil, 'the file\'s lines end with CRLF (\'fileformat\' dos) but the new text has a line ending with LF alone'
      end
    end
  end
  local final = lines[#lines] == ''
  if final then
    table.remove(lines)
  end
  return lines, final
end

--- The lines of `old` to replace and what with, so that marks and the cursor outside stay:
--- old[first..old_last] becomes new[first..new_last]; nil when they are equal.
local function differing(old, new)
  local first = 1
  while first <= #old and first <= #new and old[first] == new[first] do
    first = first + 1
  end
  local old_last, new_last = #old, #new
  while old_last >= first and new_last >= first and old[old_last] == new[new_last] do
    old_last, new_last = old_last - 1, new_last - 1
  end
  if old_last < first and new_last < first then
    return nil
  end
  return first, old_last, vim.list_slice(new, first, new_last)
end

--- Puts `lines` into `buf` as one change of its own that `u` undoes, not joined with the user's
--- last change: setting 'undolevels', even to its value, closes the undo block (:h undo-blocks).
local function replace_lines(buf, lines)
  local first, old_last, replacement = differing(api.nvim_buf_get_lines(buf, 0, -1, true), lines)
  if first == nil then
    return
  end
  api.nvim_buf_call(buf, function()
    vim.cmd('let &l:undolevels = &l:undolevels')
  end)
  api.nvim_buf_set_lines(buf, first - 1, old_last, true, replacement)
end

--- `fs/writeTextFile`: puts `text` into the loaded buffer of the file at `path` and saves it, so
--- the buffer stays in step with the disk (Santra would write the disk itself otherwise, and the
--- user's next :write would warn that the file changed since it was read). Returns true, with a
--- warning when the buffer holds the text but could not be saved (Santra then writes the disk);
--- nil and a message when the text could not go into the buffer, or must not: the buffer holds
--- unsaved text Santra did not read, which the change would be written over. A file with no
--- loaded buffer is not touched.
function M.write(path, text)
  local buf = M.find(path)
  if buf == nil then
    return true
  end
  local ending, why = line_ending(buf)
  if ending ~= nil and option(buf, 'modified') and saved_text(buf, ending) ~= lent[path] then
    -- The user typed in it after Santra read it: the change was computed without that text.
    return nil,
      string.format(
        'santra.nvim did not put the approved change into your buffer of %s: it changed after Santra read it. Your buffer is left as it is; Santra writes the change to the file on disk (:edit! loads it, :write keeps yours)',
        path
      )
  end
  local lines, final
  if ending ~= nil then
    lines, final, why = lines_of(text, ending)
  end
  if lines == nil then
    return nil, string.format('santra.nvim cannot put the change into its buffer of %s: %s', path, why)
  end
  if not option(buf, 'modifiable') then
    return nil, string.format("santra.nvim cannot put the change into its buffer of %s: it is not 'modifiable'", path)
  end
  replace_lines(buf, lines)
  lent[path] = text
  api.nvim_buf_set_option(buf, 'endofline', final)
  if not final then
    -- Saving would add the final newline the approved text does not have.
    api.nvim_buf_set_option(buf, 'fixendofline', false)
  end
  -- write!: the approved text was made from this buffer, and it replaces whatever the disk holds.
  -- noautocmd: a format-on-save hook would save something other than what the user approved.
  local saved, err = pcall(api.nvim_buf_call, buf, function()
    vim.cmd('lockmarks noautocmd silent write!')
  end)
  if not saved then
    return true, string.format('%s holds the change but could not be saved (%s); Santra writes the file', path, tostring(err))
  end
  return true
end

--- After Santra changed the file at `path` on disk (an undo): its loaded buffer, if unmodified,
--- is read again (`:edit`, which `u` undoes). Returns a message when it was not: the buffer holds
--- changes the user has not saved, or the file is gone.
function M.reload(path)
  local buf = M.find(path)
  lent[path] = nil
  if buf == nil then
    return nil
  end
  if option(buf, 'modified') then
    return string.format('%s: your buffer has unsaved changes, it was not reloaded', path)
  end
  if vim.loop.fs_stat(path) == nil then
    return string.format('%s no longer exists; its buffer is kept', path)
  end
  api.nvim_buf_call(buf, function()
    vim.cmd('silent edit')
  end)
  return nil
end

return M
