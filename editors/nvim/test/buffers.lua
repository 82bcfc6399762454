-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath, in a scratch directory ($PWD), puts santra.buffers (what fs/readTextFile and
-- fs/writeTextFile are served with) through the cases a real file can be in, and writes what it
-- saw as JSON to $SANTRA_NVIM_OUT. No server: the end-to-end flow is buffer_flow.lua.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local buffers = require('santra.buffers')
local report = {}
local dir = vim.loop.fs_realpath(vim.fn.getcwd())

local function disk(name)
  local f = assert(io.open(dir .. '/' .. name, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end

local function create(name, text)
  local f = assert(io.open(dir .. '/' .. name, 'wb'))
  f:write(text)
  f:close()
  return dir .. '/' .. name
end

--- Opens `name` (created with `text`) and changes its last line, unsaved: a buffer Santra reads.
local function modified(name, text, before_read)
  local path = create(name, text)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  if before_read then
    before_read()
  end
  local last = vim.api.nvim_buf_line_count(0)
  vim.api.nvim_buf_set_lines(0, last - 1, last, true, { 'changed' })
  return path, vim.api.nvim_get_current_buf()
end

--- `modified`, then read by Santra: what a change of it is computed from, before it is written.
local function read_modified(name, text)
  local path, buf = modified(name, text)
  buffers.read(path)
  return path, buf
end

--- A case's outcome: what the call returned (nil as false, so the JSON keeps the member).
local function outcome(value, err)
  return { value = value == nil and vim.NIL or value, err = err == nil and vim.NIL or err }
end

flow.run(report, function()
  -- A file opened through a symbolic link is found by its resolved path, as Santra names it.
  local real = create('real.txt', 'one\n')
  vim.loop.fs_symlink(real, dir .. '/link.txt')
  vim.cmd('edit ' .. dir .. '/link.txt')
  report.found_through_link = buffers.find(real) == vim.api.nvim_get_current_buf()
  -- Unmodified, holding what the disk holds: lent too, so Santra reads it again after an approval.
  report.unmodified = outcome(buffers.read(real))
  report.unchanged_since_read = outcome(buffers.changed_since_read(real))
  -- Typed in after Santra read it: a change made from the earlier text must not be written over it.
  vim.api.nvim_buf_set_lines(0, 0, 1, true, { 'typed' })
  report.changed_since_read = outcome(buffers.changed_since_read(real))
  report.write_after_typing = outcome(buffers.write(real, 'one\ntwo\n'))
  report.write_after_typing_buffer = vim.api.nvim_buf_get_lines(0, 0, -1, true)
  vim.cmd('edit!')
  -- Unmodified but the file changed on disk since it was loaded: the disk is newer.
  create('real.txt', 'newer\n')
  report.stale = outcome(buffers.read(real))
  report.not_loaded = outcome(buffers.read(create('elsewhere.txt', 'x\n')))
  -- Santra read the disk, then the user opened the file and typed in it.
  local opened_later = create('later.txt', 'disk\n')
  buffers.read(opened_later)
  vim.cmd('edit ' .. vim.fn.fnameescape(opened_later))
  vim.api.nvim_buf_set_lines(0, 0, 1, true, { 'typed' })
  report.changed_unlent = outcome(buffers.changed_since_read(opened_later))

  local unix = modified('unix.txt', 'a\nb\n')
  report.unix = outcome(buffers.read(unix))
  local noeol = modified('noeol.txt', 'a\nb', function()
    vim.bo.fixendofline = false
  end)
  report.noeol = outcome(buffers.read(noeol))
  local fixed = modified('fixed.txt', 'a\nb')
  report.fixeol = outcome(buffers.read(fixed))
  local dos = modified('dos.txt', 'a\r\nb\r\n')
  report.dos_format = vim.bo.fileformat
  report.dos = outcome(buffers.read(dos))
  local latin = modified('latin.txt', 'caf\xe9\n', function()
    vim.cmd('edit ++enc=latin1')
  end)
  report.latin1 = outcome(buffers.read(latin))

  -- Writes: the change goes into the buffer and is saved, bytes as Santra approved them.
  local path, buf = read_modified('write.txt', 'keep 1\nkeep 2\nold 3\nkeep 4\n')
  vim.api.nvim_win_set_cursor(0, { 4, 2 })
  vim.api.nvim_buf_set_mark(buf, 'a', 1, 0, {})
  report.write = outcome(buffers.write(path, 'keep 1\nkeep 2\nnew 3a\nnew 3b\nkeep 4\nchanged\n'))
  report.write_disk = disk('write.txt')
  report.write_modified = vim.bo[buf].modified
  report.write_cursor = vim.api.nvim_win_get_cursor(0)
  report.write_mark = vim.api.nvim_buf_get_mark(buf, 'a')
  vim.cmd('undo')
  report.write_undone = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  report.write_undone_modified = vim.bo[buf].modified

  path = read_modified('dos-write.txt', 'a\r\nb\r\n')
  report.dos_write = outcome(buffers.write(path, 'A\r\nb\r\n'))
  report.dos_write_disk = disk('dos-write.txt')
  report.dos_mixed = outcome(buffers.write(path, 'A\nb\r\n'))
  report.dos_mixed_disk = disk('dos-write.txt')

  path = read_modified('to-noeol.txt', 'a\n')
  report.to_noeol = outcome(buffers.write(path, 'a\nb'))
  report.to_noeol_disk = disk('to-noeol.txt')
  report.to_noeol_read_after_change = (function()
    vim.api.nvim_buf_set_lines(0, 0, 1, true, { 'A' })
    return buffers.read(path)
  end)()

  path = read_modified('emptied.txt', 'a\n')
  report.emptied = outcome(buffers.write(path, ''))
  report.emptied_disk = disk('emptied.txt')

  -- No loaded buffer: answered, nothing touched, and no buffer made.
  path = create('unloaded.txt', 'disk\n')
  report.unloaded = outcome(buffers.write(path, 'changed\n'))
  report.unloaded_disk = disk('unloaded.txt')
  report.unloaded_buffer = vim.fn.bufnr(path)

  path = read_modified('readonly.txt', 'a\n')
  vim.bo.modifiable = false
  report.not_modifiable = outcome(buffers.write(path, 'b\n'))
end)
