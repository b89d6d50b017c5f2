// The loop every Node worker runs: one request per line of stdin, answered before the next is read, and the data
// path's two try blocks (docs/adapters.md#the-data-path): what the library's call throws is the library's outcome,
// what our conversion or our answer throws is ours, a harness error. `serve` speaks the adapter protocol
// (docs/adapter-protocol.md: JSON lines in, one JSON line out per request) for hyparquet_worker.mjs and
// parquetjs_worker.mjs; parquet_wasm_reader.mjs runs `eachLine` and `dataPath` with frames of its own.
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { WRITE_REFUSALS, errorOf, libraryError } from './shared.mjs'

console.log = console.error // nothing but answers on stdout

// Each line of stdin to `handle`, one request at a time; the worker's end is the end of its input.
export async function eachLine (handle) {
  for await (const line of createInterface({ input: process.stdin })) await handle(line)
}

// One request: `library()`, the library's call (as a user makes it), decides the verdict: what it throws goes to
// `failed(e, seconds)`. `ours(result, seconds)` converts its result and answers: what that throws goes to
// `broken(e)`. `seconds`: how long the library's call took.
export async function dataPath (library, ours, failed, broken) {
  const t0 = performance.now()
  let result
  try {
    result = await library()
  } catch (e) {
    return failed(e, (performance.now() - t0) / 1000)
  }
  const seconds = (performance.now() - t0) / 1000
  try {
    await ours(result, seconds)
  } catch (e) {
    return broken(e)
  }
}

// The adapter protocol, with what is the worker's own:
// - `start()`: the start answer's fields (docs/adapter-protocol.md#start-answer);
// - `read(path)`: the library, as a user calls it; `convert(result)`: ours, `{columns, rows}` in tokens;
//   `refusals`: how the library refuses a file on purpose (shared.mjs outcomeOf);
// - `write(spec, path)`, if the worker writes: the library, given our document (`source`'s JSON, read here: a
//   mistake in it is ours); it may return fields for the answer (`writer`). Its refusals are WRITE_REFUSALS.
// Any other command is answered `unavailable` (docs/adapter-protocol.md#operations).
export async function serve ({ start, read, convert, refusals, write }) {
  await eachLine(async (line) => {
    const req = JSON.parse(line)
    const out = (msg) => process.stdout.write(JSON.stringify({ id: req.id, ...msg }) + '\n')
    const harnessError = (e) => out({ outcome: 'harness-error', error: errorOf(e) })
    if (req.cmd === 'start') {
      out(start())
    } else if (req.cmd === 'read') {
      await dataPath(() => read(req.path),
        (result, seconds) => out({ outcome: 'read', ...convert(result), library_s: seconds }),
        (e, seconds) => out({ ...libraryError(e, refusals), library_s: seconds }), harnessError)
    } else if (req.cmd === 'write' && write) {
      let spec
      try {
        spec = JSON.parse(readFileSync(req.source, 'utf8')) // our document: a mistake in it is ours
      } catch (e) {
        return harnessError(e)
      }
      await dataPath(() => write(spec, req.path),
        (fields, seconds) => out({ outcome: 'written', ...fields, library_s: seconds }),
        (e, seconds) => out({ ...libraryError(e, WRITE_REFUSALS), library_s: seconds }), harnessError)
    } else if (req.cmd === 'stop') {
      process.exit(0)
    } else { // an operation this worker has no API for (docs/adapter-protocol.md#operations)
      out({ outcome: 'unavailable', error: { class: null, message: `no operation ${String(req.cmd).slice(0, 40)}` } })
    }
  })
}
