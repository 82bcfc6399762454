-- :checkhealth santra — Neovim's version, whether the server starts and answers initialize, and
-- whether it has a model to use and its provider a key (as the server sees its configuration:
-- `model/list`, so the environment given in setup() counts too). A key is never printed.
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
  local client, start_err = client_mod.start({ cmd = cmd, cwd = santra.root(), env = santra.config.env })
  if not client then
    err(start_err)
    return
  end
  local done, result, failure = false, nil, nil
  client:initialize(santra.root(), function(e, r)
    done, result, failure = true, r, e
  end)
  vim.wait(10000, function()
    return done or client.closed
  end, 20)
  if done and failure == nil then
    ok(string.format('%s %s answers initialize (protocol %s)', result.serverInfo.name, result.serverInfo.version, result.protocolVersion))
    M.check_sandbox(result.capabilities and result.capabilities.sandbox)
    M.check_model(client)
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

--- Whether the commands Santra runs are confined by an OS sandbox here (initialize's capabilities.sandbox).
function M.check_sandbox(sandbox)
  if sandbox == nil or sandbox == vim.NIL then
    warn('the server does not say whether it sandboxes commands (an older santra-server)')
  elseif sandbox.available then
    ok('sandbox: commands run in ' .. tostring(sandbox.mechanism) .. ', profile ' .. tostring(sandbox.profile))
  else
    warn('commands run unsandboxed: ' .. tostring(sandbox.problem), { tostring(sandbox.fix), 'Run `santra doctor` for details' })
  end
end

local HOW = 'Set a provider key (e.g. ANTHROPIC_API_KEY) in the environment Neovim starts with, in setup({ env = { ... } }), or with `santra` once (first-run setup); see docs/configuration.md'

--- The model a prompt would use and whether its provider has a key, from `model/list`.
function M.check_model(client)
  local done, list, failure = false, nil, nil
  client:request('model/list', nil, function(e, r)
    done, list, failure = true, r, e
  end)
  vim.wait(10000, function()
    return done or client.closed
  end, 20)
  if not done or failure ~= nil then
    return err('model/list failed: ' .. tostring(failure and failure.message or 'no answer'))
  end
  if list.configProblem ~= nil then
    err('the configuration file has a problem: ' .. list.configProblem, { 'Fix the file; the server reads it again' })
  end
  local configured = {}
  for _, model in ipairs(list.models or {}) do
    if model.configured then
      configured[model.provider] = true
    end
  end
  local providers = vim.tbl_keys(configured)
  table.sort(providers)
  if list.current == nil or list.current == '' then
    err('no model is set and no provider has a key', { HOW, 'or set SANTRA_MODEL / `model` in config.json' })
    return
  end
  local entry = nil
  for _, model in ipairs(list.models or {}) do
    if model.ref == list.current then
      entry = model
    end
  end
  if entry == nil then
    warn(string.format('model %s is not one the server lists: whether its provider has a key is not known', list.current))
  elseif not entry.configured then
    err(string.format('model %s: its provider %s has no key', list.current, entry.provider), { HOW, 'or choose another model with :SantraModel' })
  else
    ok(string.format('model %s (%s has a key)', list.current, entry.provider))
  end
  if #providers > 0 then
    ok('providers with a key: ' .. table.concat(providers, ', '))
  end
end

return M
