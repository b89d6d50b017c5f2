// parquet-wasm reader for parquet-conformance: arrow-rs compiled to wasm reads each file named on stdin (one path
// per line) into an Arrow IPC stream, and this program passes it on untouched; the Python adapter turns it into
// canonical data with pyarrow, as it does for every Arrow reader. Frames on stdout: one status byte ('R': IPC
// stream, 'E': JSON {class, message, oom}), a 4-byte little-endian length, the payload. Line 1 is the version.
// A line that is a JSON object is a write (the writer x reader matrix): {source: an Arrow IPC stream, path, options},
// written with writeParquet and the WriterPropertiesBuilder calls the options name; answered 'W' (empty) or 'E'.
// Usage: node parquet_wasm_reader.mjs <dir holding node_modules/parquet-wasm>
import { createInterface } from 'node:readline'
import { createRequire } from 'node:module'
import { readFileSync, writeFileSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'

const require = createRequire(join(process.argv[2], 'package.json'))
console.log = console.error // nothing but frames on stdout

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

for await (const path of createInterface({ input: process.stdin })) {
  if (path.startsWith('{')) {
    try {
      write(JSON.parse(path))
    } catch (e) {
      errorFrame(e, e instanceof RangeError && /allocat|memory|Array buffer/i.test(e.message))
      continue
    }
    frame('W', Buffer.alloc(0))
    continue
  }
  let ipc
  try { // the library, as a user calls it
    ipc = wasm.readParquet(new Uint8Array(readFileSync(path))).intoIPCStream()
  } catch (e) {
    errorFrame(e, e instanceof RangeError && /allocat|memory|Array buffer/i.test(e.message))
    continue
  }
  frame('R', Buffer.from(ipc.buffer, ipc.byteOffset, ipc.byteLength))
}
