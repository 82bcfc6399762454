-- The buffers the plugin lends Santra (protocol §7.5, `capabilities.fs`): Santra reads a file the
-- user has changed but not saved from its buffer (`fs/readTextFile`), and an approved change of a
-- file the user has loaded goes into that buffer as one undoable change and is saved there
-- (`fs/writeTextFile`). A file with no loaded buffer is left to Santra, which uses the disk.
--
-- Santra compares texts with what it reads on disk, so a text given or taken here is the file's
-- bytes as Neovim would write them: lines joined with the 'fileformat' line ending, a final one
-- when 'endofline'/'fixendofline' add it. 'fileformat' dos is converted (CRLF); a file Neovim
-- writes in another encoding, with a byte order mark or with CR line endings (mac) is declined,
-- and Santra uses the disk.
local M = {}

local api = vim.api

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

--- `fs/readTextFile`: the unsaved text of the file at `path`, or nil when Santra should read the
--- disk; nil and a message when the buffer's text cannot be given. An unmodified buffer is left
--- to the disk: it holds the same text, or a newer one the buffer has not reloaded.
function M.read(path)
  local buf = M.find(path)
  if buf == nil or not option(buf, 'modified') then
    return nil
  end
  local ending, why = line_ending(buf)
  if ending == nil then
    return nil, string.format('santra.nvim cannot lend its buffer of %s: %s', path, why)
  end
  return saved_text(buf, ending)
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
--- nil and a message when the text could not go into the buffer. A file with no loaded buffer is
--- not touched.
function M.write(path, text)
  local buf = M.find(path)
  if buf == nil then
    return true
  end
  local ending, why = line_ending(buf)
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

return M
