// Drives a GTP engine with Sabaki's controller library (@sabaki/gtp) through a scripted session
// and prints what it saw as one JSON object. Usage: node gtp_session.js '["cmd", "arg", ...]'
'use strict'

const {Controller, ControllerStateTracker} = require('@sabaki/gtp')
const sgf = require('@sabaki/sgf')

const TIMEOUT_MS = 120000  // a cold start compiles numba kernels

function withTimeout(promise, what) {
  let timer
  const expiry = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), TIMEOUT_MS)
  })
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer))
}

async function main() {
  const [path, ...args] = JSON.parse(process.argv[2])
  const engine = new Controller(path, args)
  engine.start()
  const log = {}
  const started = Date.now()
  const send = async (name, args = []) => {
    if (process.env.GTP_SESSION_TRACE) console.error(`${Date.now() - started} ms: ${name}`)
    const response = await withTimeout(engine.sendCommand({name, args}), name)
    return {error: response.error, content: response.content}
  }

  log.protocol_version = await send('protocol_version')
  log.name = await send('name')
  log.version = await send('version')
  log.list_commands = await send('list_commands')
  log.unknown = await send('no_such_command')

  // Sabaki's state tracker brings the engine to a game state the way the GUI does.
  const tracker = new ControllerStateTracker(engine)
  await withTimeout(
    tracker.sync({
      komi: 6.5,
      boardsize: [9, 9],
      history: [
        {name: 'play', args: ['B', 'D4']},
        {name: 'play', args: ['W', 'E5']},
        {name: 'play', args: ['B', 'C3']}
      ]
    }),
    'sync'
  )
  log.black = await send('list_stones', ['black'])
  log.white = await send('list_stones', ['white'])
  log.genmove = await send('genmove', ['W'])
  log.illegal = await send('play', ['B', 'D4'])
  log.undo = await send('undo')
  log.after_undo = await send('list_stones', ['white'])
  log.reg_genmove = await send('reg_genmove', ['W'])
  log.after_reg_genmove = await send('list_stones', ['white'])
  log.showboard = await send('showboard')

  // The game record, read back by Sabaki's SGF parser: the main line's moves.
  const record = await send('printsgf')
  const moves = []
  let [node] = sgf.parse(record.content)
  log.sgf_root = {SZ: node.data.SZ, KM: node.data.KM}
  while (node.children.length > 0) {
    node = node.children[0]
    for (const key of ['B', 'W']) if (node.data[key]) moves.push(`${key}[${node.data[key][0]}]`)
  }
  log.sgf_moves = moves

  // Live analysis: stream info lines, then interrupt with the next command.
  const infoLines = []
  let gotLines
  const enough = new Promise(resolve => (gotLines = resolve))
  const analysis = engine.sendCommand({name: 'lz-analyze', args: ['W', '10']}, ({line}) => {
    if (line.startsWith('info')) infoLines.push(line)
    if (infoLines.length >= 3) gotLines()
  })
  await withTimeout(Promise.race([enough, analysis]), 'analysis lines')
  const interrupt = send('name')
  const analysed = await withTimeout(analysis, 'lz-analyze')
  log.analysis = {error: analysed.error, content: analysed.content, lines: infoLines}
  log.after_analysis = await interrupt

  log.final_score = await send('final_score')
  if (process.env.GTP_SESSION_TRACE) console.error(`${Date.now() - started} ms: stop`)
  await withTimeout(engine.stop(), 'stop')
  log.stopped = engine.process == null
  console.log(JSON.stringify(log))
}

main().catch(error => {
  console.error(error.stack || String(error))
  process.exit(1)
})
