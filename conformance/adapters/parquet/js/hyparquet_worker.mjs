// hyparquet worker for parquet-conformance, written against docs/adapter-protocol.md only:
// JSON lines in on stdin, one JSON line out per request on stdout, rows as canonical tokens (the loop: protocol.mjs).
// Usage: node hyparquet_worker.mjs <dir holding node_modules/hyparquet> [<dir holding node_modules/hyparquet-writer>]
// `write` (the writer x reader matrix): the document hyparquet.py makes (a schema of SchemaElements, the columns'
// values tagged where JSON cannot carry them, the profile's options) goes to hyparquet-writer's parquetWriteFile.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { serve } from './protocol.mjs'
import { dateText, revive } from './shared.mjs'

const root = join(process.argv[2], 'node_modules', 'hyparquet')
const hyparquet = await import(pathToFileURL(join(root, 'src', 'index.js')).href)
// hyparquet's own parsers (not exported by its index): what a user's call runs where ours cannot take a value
const { DEFAULT_PARSERS } = await import(pathToFileURL(join(root, 'src', 'convert.js')).href)
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

// How hyparquet refuses a file on purpose (docs/adapters.md#error-taxonomy): plain Errors with its own messages (its
// parser's, its Thrift decoder's, its snappy's) and one RangeError. A TypeError (a property of undefined) or V8's
// typed array and DataView bounds checks are unhandled errors.
const REFUSALS = [
  ['Error', /^(parquet |thrift |snappy error|invalid snappy length header$|missing eof marker$|premature end of input$|cannot copy from before start of buffer$|invalid offset \d+ pos|Unsupported geometry type)/],
  ['RangeError', /^parquet row/],
]

// Keep full precision where hyparquet's defaults would round to a JS Date: a Date (so that hyparquet's VARIANT
// decoding passes it through as the instant it is, as it does its own) carrying the exact token. These run inside the
// library's call, so they never decide its outcome: a value they do not take (not an integer: a TIMESTAMP on bytes)
// goes to hyparquet's own parser, as a user's call would (its failure is the library's), and what that returns is no
// value of ours (Unconverted: our conversion of it fails, a harness error).
class Exact extends Date {
  constructor (ms, token) { super(ms); this.token = token }
}
class Unconverted {
  constructor (value) { this.value = value }
  toJSON () { throw new Error(`no token for ${String(this.value)}, which hyparquet's own parser made`) }
}
const integer = (v) => {
  if (typeof v !== 'bigint' && !Number.isSafeInteger(v)) throw new TypeError('not an integer')
  return BigInt(v)
}
const ours = (own, library) => (v) => {
  let token
  try {
    token = own(v)
  } catch {
    return new Unconverted(library(v))
  }
  return token
}
const parsers = {
  timestampFromMilliseconds: ours((ms) => new Exact(Number(integer(ms)), { ts_ms: integer(ms).toString() }),
    DEFAULT_PARSERS.timestampFromMilliseconds),
  timestampFromMicroseconds: ours((us) => new Exact(Number(integer(us) / 1000n), { ts_us: integer(us).toString() }),
    DEFAULT_PARSERS.timestampFromMicroseconds),
  timestampFromNanoseconds: ours((ns) => new Exact(Number(integer(ns) / 1000000n), { ts_ns: integer(ns).toString() }),
    DEFAULT_PARSERS.timestampFromNanoseconds),
  // any int32: no Date arithmetic in the token
  dateFromDays: ours((days) => new Exact(Number(integer(days)) * 86400000, { date: dateText(Number(integer(days))) }),
    DEFAULT_PARSERS.dateFromDays),
  // JSON as its text (hyparquet's own UTF-8 parser), GEOMETRY and GEOGRAPHY as their WKB bytes: what the file holds,
  // which the `parsers` option lets a user ask for; hyparquet's defaults (a parsed document, GeoJSON) give no value
  // we could compare with the file's (releases without these parsers keep their defaults: not judged)
  jsonFromBytes: DEFAULT_PARSERS.stringFromBytes,
  geometryFromBytes: (bytes) => bytes,
  geographyFromBytes: (bytes) => bytes,
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const float = (x) => (Object.is(x, -0) ? '-0.0' : String(x))

function token(value, node) {
  if (value === null || value === undefined) return null
  if (value instanceof Unconverted) value.toJSON()
  const el = node.element
  if (el.logical_type?.type === 'VARIANT') return variantToken(value, child(node, 'typed_value'))
  if (el.converted_type === 'LIST' || el.logical_type?.type === 'LIST') {
    const item = node.children[0].children.length === 1 ? node.children[0].children[0] : node.children[0]
    return value.map((v) => token(v, item))
  }
  if (node.children.length) {
    const fields = {}
    for (const child of node.children) fields[child.element.name] = token(value[child.element.name], child)
    return { struct: fields }
  }
  if (value instanceof Exact) return value.token
  if (el.converted_type === 'DECIMAL') return { dec: Number(value).toFixed(el.scale || 0) }
  switch (el.type) {
    case 'BOOLEAN': return value
    case 'INT32': case 'INT64': return { int: BigInt(value).toString() }
    case 'FLOAT': case 'DOUBLE': return { float: float(value) }
    default:
      if (typeof value === 'string') return value
      if (value instanceof Uint8Array) return { bin: hex(value) }
      if (typeof value === 'number' && el.logical_type?.type === 'FLOAT16') return { float: float(value) }
      // a value hyparquet made of the bytes (a parsed JSON document, GeoJSON): no token of ours gives back what the
      // file holds, so the read is not judged (our conversion's failure, a harness error)
      throw new Error(`our conversion: no token for a ${value?.constructor?.name ?? typeof value} in a ${el.type} column`)
  }
}

const child = (node, name) => node?.children.find((c) => c.element.name === name)
const TIME_NS = { MILLIS: 1000000n, MICROS: 1000n, NANOS: 1n }

// A VARIANT value as hyparquet decodes it (JS values), in the normal form of decoded variants
// (generators/parquet/variant.py, docs/spec-notes.md#variant). `typed`: the schema node of the typed_value it was
// shredded into, if any, whose Parquet type says what a JS number or string stood for; without one (a value in the
// variant's binary), an integral number is an integer and a string text: JS keeps no more.
function variantToken(value, typed) {
  if (value === null || value === undefined) return null
  if (typed && typed.children.length && Array.isArray(value) && (typed.element.logical_type?.type === 'LIST' ||
    typed.element.converted_type === 'LIST')) {
    const element = child(typed.children[0].children[0], 'typed_value')
    return value.map((v) => variantToken(v, element))
  }
  if (Array.isArray(value)) return value.map((v) => variantToken(v, undefined))
  if (value instanceof Exact) return value.token
  if (typeof value === 'object' && !(value instanceof Uint8Array)) {
    const fields = {}
    const group = typed && typed.children.length ? typed : undefined
    for (const [k, v] of Object.entries(value)) fields[k] = variantToken(v, child(child(group, k), 'typed_value'))
    return { struct: fields }
  }
  // the shredded column's type tells what a JS number or bigint stood for (the value may have come from the binary
  // value instead: a JS boolean, string or bytes says what it is)
  const lt = typed && !typed.children.length ? typed.element.logical_type : undefined
  const physical = typed && !typed.children.length ? typed.element.type : undefined
  if (typeof value === 'boolean') return value
  if (typeof value === 'bigint') return lt?.type === 'TIME' ? { time_ns: (value * TIME_NS[lt.unit]).toString() } : { int: value.toString() }
  if (typeof value === 'number') {
    if (lt?.type === 'DECIMAL') return { dec: value.toFixed(lt.scale || 0) }
    if (physical === 'FLOAT' || physical === 'DOUBLE' || !Number.isInteger(value) || Object.is(value, -0)) return { float: float(value) }
    return { int: String(value) }
  }
  return typeof value === 'string' ? value : { bin: hex(value) }
}

// The values JSON cannot carry, tagged by hyparquet.py (shared.mjs revive): bytes as plain Uint8Arrays.
const bytes = (hex) => Uint8Array.from(Buffer.from(hex, 'hex'))

let writerModule = null
async function hyparquetWriter() {
  if (!writerModule) {
    if (!process.argv[3]) throw new Error('no hyparquet-writer prefix given to this worker')
    const base = join(process.argv[3], 'node_modules', 'hyparquet-writer')
    const pkg = JSON.parse(readFileSync(join(base, 'package.json'), 'utf8'))
    // its Node entry point (parquetWriteFile writes to a file), as `import 'hyparquet-writer'` resolves it in Node
    writerModule = { ...(await import(pathToFileURL(join(base, 'src', 'node.js')).href)), version: pkg.version }
  }
  return writerModule
}

async function read(path) { // the library, as a user calls it
  const buf = readFileSync(path)
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
  const metadata = hyparquet.parquetMetadata(file)
  const schema = hyparquet.parquetSchema(metadata)
  const rows = await hyparquet.parquetReadObjects({ file, metadata, parsers, utf8: false })
  return { schema, rows }
}

function convert({ schema, rows }) { // our conversion into tokens: its failure is ours, not the library's
  const columns = schema.children.map((c) => c.element.name)
  return { columns, rows: rows.map((r) => schema.children.map((c) => token(r[c.element.name], c))) }
}

async function write(spec, path) { // the library, as a user calls it, given our document
  const writer = await hyparquetWriter()
  await writer.parquetWriteFile({ filename: path, schema: spec.schema, ...spec.options,
    columnData: spec.columns.map((c) => ({ name: c.name, data: revive(c.data, bytes), ...c.extra })) })
  return { writer: `hyparquet-writer ${writer.version}` }
}

// The adapter protocol's loop (protocol.mjs) with what is hyparquet's own.
await serve({
  start: () => ({ ok: true, adapter: 'hyparquet', implementation: 'hyparquet (JavaScript)', version, roles: ['legacy'] }),
  read, convert, refusals: REFUSALS, write,
})
