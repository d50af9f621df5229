// Drives ponder through @sabaki/gtp (Sabaki's own GTP client) the way Sabaki does: pipelined
// start-up commands, board sync with play, genmove, and lz-analyze ended by the next command.
// Usage: node sabaki_test.js [path/to/ponder]   (default: ../../../target/release/ponder)
// Prints one line per check and 'N passed, N failed'; exits 1 on any failure.

const path = require('path')
const {Controller} = require('@sabaki/gtp')

const ponder = process.argv[2] || path.join(__dirname, '..', '..', '..', 'target', 'release', 'ponder')
let passed = 0
let failed = 0

function check(label, ok, detail = '') {
  if (ok) passed++
  else failed++
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}${ok || !detail ? '' : ': ' + detail}`)
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const vertex = /^[A-HJ-Z][1-9][0-9]?$/

// Leela Zero's analysis line as Sabaki reads it: `info move M visits N winrate W prior P lcb L
// order O pv M...`, one `info` block per root move on a line.
function parseInfoLine(line) {
  const blocks = line.split(/\s*info\s+/).slice(1)
  return blocks.map(block => {
    const [head, pv] = block.split(/\s+pv\s+/)
    const fields = {}
    const words = head.trim().split(/\s+/)
    for (let i = 0; i + 1 < words.length; i += 2) fields[words[i]] = words[i + 1]
    return {fields, pv: pv ? pv.trim().split(/\s+/) : []}
  })
}

async function main() {
  const engine = new Controller(ponder, ['--game', 'tictactoe', '--seed', '1', '--max-time', '1'])
  engine.start()

  // 1. Start-up: Sabaki sends these at once without waiting for the answers.
  const startup = ['name', 'version', 'protocol_version', 'list_commands', 'boardsize 3', 'clear_board', 'komi 0',
    'play B B2', 'play W A1']
  const answers = await Promise.all(startup.map(line => {
    const [name, ...args] = line.split(' ')
    return engine.sendCommand({name, args})
  }))
  answers.forEach((answer, i) => check(`pipelined '${startup[i]}' answered`, !answer.error, answer.content))
  check('name is ponder', answers[0].content === 'ponder', answers[0].content)
  check('protocol_version is 2', answers[2].content === '2', answers[2].content)
  const commands = answers[3].content.split('\n')
  for (const needed of ['genmove', 'lz-analyze', 'kata-analyze', 'undo', 'gogui-rules_legal_moves']) {
    check(`list_commands has ${needed}`, commands.includes(needed))
  }

  // 2. A move from the engine, then the board as Sabaki syncs it.
  const move = await engine.sendCommand({name: 'genmove', args: ['B']})
  check('genmove answers a free vertex', !move.error && vertex.test(move.content) &&
    !['A1', 'B2'].includes(move.content), move.content)
  const illegal = await engine.sendCommand({name: 'play', args: ['W', 'B2']})
  check('an occupied vertex is an error', illegal.error && illegal.content === 'illegal move', illegal.content)

  // 3. Analysis: lz-analyze streams info lines until the next command arrives.
  const lines = []
  const analysis = engine.sendCommand({name: 'lz-analyze', args: ['W', '10']}, ({line}) => {
    if (line.startsWith('info')) lines.push(line)
  })
  for (let waited = 0; lines.length < 3 && waited < 1500; waited += 50) await sleep(50)
  const next = engine.sendCommand({name: 'name'})
  const analysisResponse = await analysis
  const nextResponse = await next
  check('lz-analyze ends without error when the next command comes', !analysisResponse.error)
  check('the next command is answered after the analysis', nextResponse.content === 'ponder', nextResponse.content)
  // A tic-tac-toe position is proven within milliseconds, after which the analysis has nothing
  // new to report; one line is what Sabaki needs to show it.
  check('lz-analyze sent info lines', lines.length >= 1, `${lines.length} lines`)
  let wellFormed = lines.length > 0
  for (const line of lines) {
    for (const {fields, pv} of parseInfoLine(line)) {
      const numbers = ['visits', 'winrate', 'prior', 'lcb', 'order'].every(key => /^\d+$/.test(fields[key] || ''))
      if (!vertex.test(fields.move || '') || !numbers || pv.length === 0 || pv[0] !== fields.move ||
        Number(fields.winrate) > 10000) {
        wellFormed = false
        console.log(`  bad info block in: ${line}`)
      }
    }
  }
  check('every info block parses as Sabaki reads it', wellFormed)

  // 4. Undo and a finished game, as Sabaki's board sync does them.
  const undo = await engine.sendCommand({name: 'undo'})
  check('undo', !undo.error, undo.content)
  const resync = ['clear_board', 'play B A1', 'play W B1', 'play B A2', 'play W B2', 'play B A3']
  for (const line of resync) {
    const [name, ...args] = line.split(' ')
    const answer = await engine.sendCommand({name, args})
    check(`resync '${line}'`, !answer.error, answer.content)
  }
  const score = await engine.sendCommand({name: 'final_score'})
  check('final_score after three in a row', score.content === 'B+', score.content)
  const lost = await engine.sendCommand({name: 'genmove', args: ['W']})
  check('genmove for the loser resigns', lost.content === 'resign', lost.content)

  // Controller.stop() sends `quit` itself (and kills the process if it lingers).
  await engine.stop()
  check('the engine exited', engine.process == null || engine.process.exitCode === 0 ||
    engine.process.signalCode == null, String(engine.process && engine.process.exitCode))
}

main()
  .catch(error => {
    failed++
    console.log(`FAIL ${error}`)
  })
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`)
    process.exit(failed === 0 && passed > 0 ? 0 : 1)
  })
