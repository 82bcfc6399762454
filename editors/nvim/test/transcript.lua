-- Driven by scripts/test/nvim-plugin.test.ts: `nvim --headless -u NONE` with the plugin on the
-- runtimepath draws phases into a transcript buffer without a server, and writes its lines as
-- JSON to $SANTRA_NVIM_OUT: status lines with a key replace each other; other lines stay; a
-- command's output shows under its result, its last lines only.
local flow = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'flow.lua')
local transcript = require('santra.transcript').new('santra://transcript/test')
local report = {}

local seq = 0
local function phase(fields)
  seq = seq + 1
  local p = { runId = 'run_1', sessionId = 'ses_1', agentId = 'orchestrator', seq = seq }
  for k, v in pairs(fields) do
    p[k] = v
  end
  transcript:phase(p)
end

flow.run(report, function()
  transcript:begin('write it')
  phase({ type = 'status', level = 'warning', key = 'model-call', text = 'Retrying in 1 s (attempt 2 of 4)' })
  phase({ type = 'status', level = 'warning', key = 'model-call', text = 'Retrying in 2 s (attempt 3 of 4)' })
  phase({ type = 'text', text = 'Writing the file.' })
  phase({ type = 'status', key = 'tool-input', text = 'write_file notes.md: receiving 8 KB' })
  phase({ type = 'status', key = 'tool-input', text = 'write_file notes.md: receiving 16 KB' })
  phase({ type = 'status', text = 'Reading the tests' })
  phase({ type = 'status', text = 'Reading the tests again' })
  report.lines = transcript:lines()

  -- A command: 12 lines on stdout and one on stderr, as run_command gives them to the model.
  local stdout = {}
  for i = 1, 12 do
    stdout[i] = 'line ' .. i
  end
  phase({ type = 'tool_call', toolCallId = 'c1', toolName = 'run_command', kind = 'execute', args = { command = 'make' }, summary = 'run_command make' })
  phase({
    type = 'tool_result',
    toolCallId = 'c1',
    toolName = 'run_command',
    status = 'error',
    summary = 'exit 2',
    output = 'Exit code 2 after 0.1 s.\n<stdout>\n' .. table.concat(stdout, '\n') .. '\n</stdout>\n<stderr>\nmake: *** [all] Error 2\n</stderr>',
  })
  -- A call that is not a command shows no output.
  phase({ type = 'tool_call', toolCallId = 'r1', toolName = 'read_file', kind = 'read', args = { path = 'a' }, summary = 'read_file a' })
  phase({ type = 'tool_result', toolCallId = 'r1', toolName = 'read_file', status = 'ok', summary = '1 lines', output = '<stdout>\nnot shown\n</stdout>' })
  report.command_lines = vim.list_slice(transcript:lines(), #report.lines + 1)
end)
