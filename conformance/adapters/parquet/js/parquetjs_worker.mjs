// @dsnp/parquetjs worker for parquet-conformance (docs/adapter-protocol.md): JSON lines in on stdin, one
// JSON line out per request on stdout, rows as canonical tokens (the loop: protocol.mjs).
// Usage: node parquetjs_worker.mjs <dir holding node_modules/@dsnp/parquetjs>
// The library returns the raw 3-level list shape: a list is {list: [{element: v}, ...]}, an empty list
// {list: null}, a null list null; this worker turns that shape into tokens, so null and empty stay apart,
// and a map's {key_value: [{key, value}]} into [key, value] pairs.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { serve } from './protocol.mjs'
import { dateText, revive } from './shared.mjs'

const require = createRequire(join(process.argv[2], 'package.json'))

// How parquetjs refuses a file on purpose (docs/adapters.md#error-taxonomy): plain Errors with its own messages (and
// snappyjs'), Apache Thrift's exceptions, its varint decoder's RangeError, JSON.parse's SyntaxError on a JSON value,
// and the validation error of the uuid package that Thrift's compact reader calls for a field of type 13 (uuid 14
// `stringify` throws TypeError('Stringified UUID is invalid') on purpose when the bytes are no RFC 4122 UUID: a
// dependency's own check, rule 4). Any other TypeError (a property of null) and Node's Buffer bounds checks
// (RangeError [ERR_OUT_OF_RANGE]) are unhandled errors.
const REFUSALS = [
  ['Error', /^(not a valid parquet file|not valid parquet file|invalid parquet version|invalid metadata size|Invalid ENUM value|Invalid Snappy bitstream|read failed|invalid encoding: |invalid compression method|invalid page type|invalid RLE encoding|unsupported type|invalid type|Invalid type: |out of bounds$|Missing RowGroup|Column .* Not Found|page offset and\/or size missing|buffer is empty|must be a multiple of 8|bitWidth is required|Unsupported time unit|TIME type must have a valid unit|Number exceeds)/],
  ['TProtocolException', /./], ['TException', /./], ['InputBufferUnderrunError', /./],
  ['RangeError', /^Could not decode varint$/],
  ['TypeError', /^Stringified UUID is invalid$/],
  ['SyntaxError', /JSON/],
]

let parquet, types, version
try {
  parquet = require('@dsnp/parquetjs')
  types = require('@dsnp/parquetjs/dist/lib/types.js')
  version = require('@dsnp/parquetjs/package.json').version.replace(/^v/, '')
} catch (e) {
  parquet = null
  version = String(e?.message ?? e).split('\n')[0]
}

// DATE and TIMESTAMP_* would come back as JS Dates (ms: TIMESTAMP_MICROS would lose its µs): keep the raw
// values. shred.js calls fromPrimitive through the exports object, so replacing it there is enough.
function keepRawTemporal(types) {
  const RAW = new Set(['DATE', 'TIMESTAMP_MILLIS', 'TIMESTAMP_MICROS', 'TIME_MILLIS', 'TIME_MICROS'])
  const fromPrimitive = types.fromPrimitive
  types.fromPrimitive = (type, value, field) => (RAW.has(type) ? value : fromPrimitive(type, value, field))
}
if (parquet) keepRawTemporal(types)

function bigFromBytes(buf) { // big-endian two's complement
  let v = 0n
  for (const b of buf) v = (v << 8n) | BigInt(b)
  if (buf.length && (buf[0] & 0x80)) v -= 1n << BigInt(8 * buf.length)
  return v
}
function decimal(unscaled, scale) {
  const neg = unscaled < 0n
  let s = (neg ? -unscaled : unscaled).toString()
  if (scale > 0) { s = s.padStart(scale + 1, '0'); s = s.slice(0, -scale) + '.' + s.slice(-scale) }
  return (neg ? '-' : '') + s
}
function float(v) {
  if (Number.isNaN(v)) return { float: 'nan' }
  if (v === Infinity) return { float: 'inf' }
  if (v === -Infinity) return { float: '-inf' }
  return { float: Object.is(v, -0) ? '-0.0' : String(v) }
}
const isList = (f) => f.originalType === 'LIST' || (f.fields && Object.keys(f.fields).length === 1 &&
  Object.values(f.fields)[0].repetitionType === 'REPEATED' && f.originalType !== 'MAP')

// Paths the footer annotates MAP: the library's schema drops that annotation, its footer keeps it.
let maps = new Set()
function mapPaths(elements) {
  const found = new Set()
  let i = 1 // elements[0] is the root
  const walk = (prefix, count) => {
    for (let k = 0; k < count; k++) {
      const el = elements[i++], path = [...prefix, el.name]
      if (el.converted_type === 1 || el.logicalType?.MAP) found.add(path.join('.'))
      if (el.num_children) walk(path, el.num_children)
    }
  }
  walk([], elements[0]?.num_children ?? 0)
  return found
}

function token(f, v) {
  if (v === null || v === undefined) return null
  if (f.isNested) {
    if (maps.has(f.path.join('.')) && Object.keys(f.fields).length === 1) { // {key_value: [{key, value}]}: pairs
      const kv = Object.values(f.fields)[0]
      const [k, val] = Object.values(kv.fields)
      return (v[kv.name] ?? []).map((x) => [token(k, x[k.name]), token(val, x[val.name])])
    }
    if (isList(f)) {
      const rep = Object.values(f.fields)[0]
      const items = v[rep.name]
      if (items === null || items === undefined) return [] // {list: null}: an empty list
      if (rep.isNested && Object.keys(rep.fields).length === 1) { // 3-level: repeated group of one element
        const el = Object.values(rep.fields)[0]
        return items.map((x) => token(el, x[el.name]))
      }
      return items.map((x) => token({ ...rep, repetitionType: 'REQUIRED' }, x)) // 2-level
    }
    const fields = {}
    for (const [name, child] of Object.entries(f.fields)) fields[name] = token(child, v[name])
    return { struct: fields }
  }
  if (f.repetitionType === 'REPEATED' && Array.isArray(v)) return v.map((x) => token({ ...f, repetitionType: 'REQUIRED' }, x))
  switch (f.originalType) {
    case 'DECIMAL': // INT32/INT64 decimals come back as the library's scaled JS number: shown at the declared scale
      if (typeof v === 'number') return { dec: Math.abs(v) < 1e21 ? v.toFixed(f.scale || 0) : String(v) }
      return { dec: decimal(Buffer.isBuffer(v) ? bigFromBytes(v) : BigInt(v), f.scale || 0) }
    case 'DATE': return { date: dateText(v) }
    case 'TIMESTAMP_MICROS': return { ts_us: BigInt(v).toString() }
    case 'TIMESTAMP_MILLIS': return { ts_ms: BigInt(v).toString() }
    case 'TIME_MICROS': return { time_us: BigInt(v).toString() }
    // JSON and BSON come back parsed: written again with the library's own writer (equal bytes for compact input)
    case 'JSON': return types.toPrimitive('JSON', v, f).toString('utf8')
    case 'BSON': return { bin: Buffer.from(types.toPrimitive('BSON', v, f)).toString('hex') }
    case 'INTERVAL': { // the library's {months, days, milliseconds}: back to the 12 little-endian bytes
      const b = Buffer.alloc(12)
      b.writeUInt32LE(v.months, 0); b.writeUInt32LE(v.days, 4); b.writeUInt32LE(v.milliseconds, 8)
      return { bin: b.toString('hex') }
    }
    case 'TIME_MILLIS': return { time_ms: BigInt(v).toString() }
  }
  if (typeof v === 'boolean' || typeof v === 'string') return v
  if (typeof v === 'bigint') return { int: v.toString() }
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { bin: Buffer.from(v).toString('hex') }
  if (typeof v === 'number') return f.primitiveType === 'FLOAT' || f.primitiveType === 'DOUBLE' ? float(v) : { int: String(v) }
  throw new Error(`no canonical form for ${typeof v} in ${f.path.join('.')}`)
}

async function read(path) { // the library, as a user calls it
  const reader = await parquet.ParquetReader.openFile(path)
  try {
    const fields = Object.values(reader.getSchema().fields)
    const cursor = reader.getCursor()
    const rows = []
    for (let r; (r = await cursor.next());) rows.push(r)
    return { fields, rows, elements: reader.metadata?.schema ?? [] }
  } finally {
    await reader.close()
  }
}

function convert({ fields, rows, elements }) { // our conversion into tokens: its failure is ours, not the library's
  maps = mapPaths(elements)
  return { columns: fields.map((f) => f.name), rows: rows.map((r) => fields.map((f) => token(f, r[f.name]))) }
}

// `write` (the writer x reader matrix): parquetjs.py's document (the library's schema object, the rows in its
// shapes with the values JSON cannot carry tagged, revived by shared.mjs with bytes as Buffers, the writer's
// options) through ParquetWriter.openFile.
const bytes = (hex) => Buffer.from(hex, 'hex')

async function write(spec, path) {
  const writer = await parquet.ParquetWriter.openFile(new parquet.ParquetSchema(spec.schema), path, spec.options)
  for (const row of spec.rows) await writer.appendRow(revive(row, bytes))
  await writer.close()
}

// The adapter protocol's loop (protocol.mjs) with what is parquetjs' own.
await serve({
  start: () => (parquet ? { ok: true, adapter: 'parquetjs', implementation: '@dsnp/parquetjs (JavaScript)', version,
    roles: ['legacy'] } : { ok: false, unavailable: `@dsnp/parquetjs cannot be loaded: ${version}` }),
  read, convert, refusals: REFUSALS, write,
})
