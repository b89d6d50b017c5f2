// parquet-wasm reader for parquet-conformance: arrow-rs compiled to wasm reads each file named on stdin (one path
// per line) into an Arrow IPC stream, and this program passes it on untouched; the Python adapter turns it into
// canonical data with pyarrow, as it does for every Arrow reader. Frames on stdout: one status byte ('R': IPC
// stream, 'E': JSON {class, message, oom}), a 4-byte little-endian length, the payload. Line 1 is the version.
// A line that is a JSON object is a write (the writer x reader matrix): {source: an Arrow IPC stream, path, options},
// written with writeParquet and the WriterPropertiesBuilder calls the options name; answered 'W' (empty) or 'E'.
// The loop and its two try blocks are protocol.mjs's (eachLine, dataPath), with these frames.
// Usage: node parquet_wasm_reader.mjs <dir holding node_modules/parquet-wasm>
import { createRequire } from 'node:module'
import { readFileSync, writeFileSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { dataPath, eachLine } from './protocol.mjs'

const require = createRequire(join(process.argv[2], 'package.json'))

function frame(status, payload) {
  const head = Buffer.alloc(5)
  head.write(status, 0, 'latin1')
  head.writeUInt32LE(payload.length, 1)
  for (const part of [head, payload]) {
    for (let done = 0; done < part.length;) done += writeSync(1, part, done) // synchronous: frames never interleave
  }
}
const errorFrame = (e, oom) => frame('E', Buffer.from(JSON.stringify(
  { class: e?.constructor?.name ?? 'Error', message: String(e?.message ?? e), oom })))

// package.json is not exported: walk up from the entry point to find the version.
function versionOf(name) {
  for (let d = dirname(require.resolve(name)); d !== dirname(d); d = dirname(d)) {
    try {
      const j = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'))
      if (j.name === name) return j.version
    } catch {}
  }
  return 'unknown'
}

let wasm
try {
  try {
    wasm = require('parquet-wasm') // the node build: synchronous, no init()
  } catch {
    // 0.7.0 and 0.7.1 ship node/parquet_wasm.js as CommonJS under "type": "module": use the ESM build.
    const esm = require.resolve('parquet-wasm/esm')
    wasm = await import(esm)
    wasm.initSync({ module: readFileSync(esm.replace(/parquet_wasm\.js$/, 'parquet_wasm_bg.wasm')) })
  }
  frame('V', Buffer.from(versionOf('parquet-wasm')))
} catch (e) {
  errorFrame(e, false)
  process.exit(0)
}

function write({ source, path, options }) { // the library, as a user calls it
  const table = wasm.Table.fromIPCStream(new Uint8Array(readFileSync(source)))
  let b = new wasm.WriterPropertiesBuilder()
  if (options.compression) b = b.setCompression(wasm.Compression[options.compression])
  if (options.v2) b = b.setWriterVersion(wasm.WriterVersion.V2)
  if ('dictionary' in options) b = b.setDictionaryEnabled(options.dictionary)
  if (options.statistics) b = b.setStatisticsEnabled(wasm.EnabledStatistics[options.statistics])
  if (options.rowGroupSize) b = b.setMaxRowGroupSize(options.rowGroupSize)
  if (options.pageBytes) b = b.setDataPageSizeLimit(options.pageBytes)
  writeFileSync(path, wasm.writeParquet(table, b.build()))
}

// What the library threw, for the Python adapter to sort (parquet_wasm.py's refusals); out of memory flagged.
const failed = (e) => errorFrame(e, e instanceof RangeError && /allocat|memory|Array buffer/i.test(e.message))
// Our failure (writing a frame) has no frame: it ends this process, and the Python worker dies the same way.
const broken = (e) => { throw e }

await eachLine((line) => (line.startsWith('{')
  ? dataPath(() => write(JSON.parse(line)), () => frame('W', Buffer.alloc(0)), failed, broken)
  : dataPath(() => wasm.readParquet(new Uint8Array(readFileSync(line))).intoIPCStream(), // the library, as a user calls it
    (ipc) => frame('R', Buffer.from(ipc.buffer, ipc.byteOffset, ipc.byteLength)), failed, broken)))
