-- :checkhealth santra — Neovim's version, and whether the server starts and answers initialize.
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local err = health.error or health.report_error

function M.check()
  start('santra')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 1 then
    ok('Neovim ' .. version)
  else
    err('Neovim ' .. version .. ': santra.nvim needs 0.7 or later')
  end
  local santra = require('santra')
  local cmd = santra.config.cmd
  if vim.fn.executable(cmd[1]) ~= 1 then
    err(cmd[1] .. ' is not executable', { 'Install Santra (santra-server on PATH) or set cmd in setup()' })
    return
  end
  ok('server: ' .. table.concat(cmd, ' ') .. ' (' .. vim.fn.exepath(cmd[1]) .. ')')
  local client_mod = require('santra.client')
  local client, start_err = client_mod.start({ cmd = cmd, cwd = vim.fn.getcwd(), env = santra.config.env })
  if not client then
    err(start_err)
    return
  end
  local done, result, failure = false, nil, nil
  client:initialize(vim.fn.getcwd(), function(e, r)
    done, result, failure = true, r, e
  end)
  vim.wait(10000, function()
    return done or client.closed
  end, 20)
  if done and failure == nil then
    ok(string.format('%s %s answers initialize (protocol %s)', result.serverInfo.name, result.serverInfo.version, result.protocolVersion))
  elseif failure ~= nil then
    err('initialize failed: ' .. tostring(failure.message))
  else
    err('the server did not answer initialize: ' .. client.stderr)
  end
  client:stop(2000)
  if not client:wait_exit(3000) then
    warn('the server did not exit after shutdown')
  end
end

return M
