-- The user of the Neovim plugin (editors/nvim) in the conformance suite's client mode: run as
--   nvim --headless -u NONE -i NONE -n --cmd 'set rtp^=<editors/nvim>' -c 'luafile <this file>'
-- under `santra-conformance client --cancel client`. It points the plugin at the scripted server
-- ($SANTRA_CONFORMANCE_SERVER_CMD), sends one prompt with :Santra, and then acts as a person would:
-- answers an approval split with a key ($SANTRA_CONFORMANCE_NVIM_KEY, default "y", allow; "f" gives the
-- feedback $SANTRA_CONFORMANCE_NVIM_FEEDBACK), answers a question with :SantraAnswer (whose
-- vim.ui.select / vim.ui.input stubs pick the second option, or type "notes.md" into a free-text
-- one), runs :SantraCancel when the server cues "cancel", and quits Neovim with :qall! once the prompt is answered ($SANTRA_CONFORMANCE_NVIM_QUIT=stop calls the
-- plugin's stop() and waits for the server instead). What the plugin sends is judged by the server.
local server_cmd = os.getenv('SANTRA_CONFORMANCE_SERVER_CMD')
local cue_file = os.getenv('SANTRA_CONFORMANCE_CUE')
local key = os.getenv('SANTRA_CONFORMANCE_NVIM_KEY') or 'y'
local feedback = os.getenv('SANTRA_CONFORMANCE_NVIM_FEEDBACK') or 'use notes.md instead'
local quit = os.getenv('SANTRA_CONFORMANCE_NVIM_QUIT') or 'qall'
local TIMEOUT_MS = tonumber(os.getenv('SANTRA_CONFORMANCE_DEADLINE_MS') or '30000')

local santra = require('santra')
local approval = require('santra.approval')
local question = require('santra.question')
local Client = require('santra.client').Client

-- Whether the prompt has been answered, with a result or an error: seen by wrapping the plugin's
-- request function, since a fast answer can come and go between two polls of its status.
local answered = false
local request = Client.request
Client.request = function(self, method, params, callback)
  if method ~= 'prompt' then
    return request(self, method, params, callback)
  end
  return request(self, method, params, function(...)
    answered = true
    if callback then
      callback(...)
    end
  end)
end

local function cued(name)
  if cue_file == nil then
    return false
  end
  local f = io.open(cue_file, 'r')
  if f == nil then
    return false
  end
  local text = f:read('*a')
  f:close()
  return text:find(name, 1, true) ~= nil
end

-- A person answering questions: the second option, or "notes.md" typed.
vim.ui.select = function(items, _, on_choice)
  on_choice(items[2] or items[1])
end
vim.ui.input = function(opts, on_confirm)
  on_confirm((opts.prompt or ''):find('Feedback', 1, true) and feedback or 'notes.md')
end
vim.notify = function(msg)
  io.stderr:write(tostring(msg) .. '\n')
end

-- A failure of this script itself must end Neovim with an error, not leave it waiting headless.
local ok, failure = xpcall(function()
  assert(server_cmd, 'SANTRA_CONFORMANCE_SERVER_CMD is not set; run this under santra-conformance client')
  santra.setup({ cmd = vim.json.decode(server_cmd) })
  vim.cmd('Santra hello from the conformance suite')

  local cancelled = false
  vim.wait(TIMEOUT_MS, function()
    local status = santra.status()
    if approval.current() ~= nil then
      vim.api.nvim_set_current_win(approval.current().win)
      vim.api.nvim_feedkeys(key, 'x', false)
    end
    if question.current() ~= nil then
      vim.cmd('SantraAnswer')
    end
    if status.running and not cancelled and cued('cancel') then
      cancelled = true
      vim.cmd('SantraCancel')
    end
    return answered or status.client == nil
  end, 20)

  if quit == 'stop' then
    local client = santra.status().client
    santra.stop()
    if client ~= nil then
      client:wait_exit(10000)
    end
  end
end, debug.traceback)
if not ok then
  io.stderr:write('nvim-user.lua: ' .. tostring(failure) .. '\n')
  vim.cmd('cquit 3')
end
vim.cmd('qall!')
