// parquet-wasm worker for parquet-conformance (docs/adapter-protocol.md): arrow-rs compiled to wasm reads the
// file into an Arrow IPC stream; apache-arrow (JS) decodes it and this worker walks the Arrow data directly
// (validity bitmaps, offsets, children) into canonical tokens: exact int64 and timestamps, decimals, -0.0, NaN.
// Usage: node parquet_wasm_worker.mjs <dir holding node_modules/parquet-wasm and apache-arrow> [engine]
import { createInterface } from 'node:readline'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const require = createRequire(join(process.argv[2], 'package.json'))
const out = (msg) => process.stdout.write(JSON.stringify(msg) + '\n')
console.log = console.error // nothing but answers on stdout

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

let wasm, arrow, Type, version, problem
try {
  try {
    wasm = require('parquet-wasm') // the node build: synchronous, no init()
  } catch {
    // 0.7.0 and 0.7.1 ship node/parquet_wasm.js as CommonJS under "type": "module": use the ESM build.
    const esm = require.resolve('parquet-wasm/esm')
    wasm = await import(esm)
    wasm.initSync({ module: readFileSync(esm.replace(/parquet_wasm\.js$/, 'parquet_wasm_bg.wasm')) })
  }
  arrow = require('apache-arrow')
  Type = arrow.Type
  version = versionOf('parquet-wasm')
} catch (e) {
  problem = String(e?.message ?? e).split('\n')[0]
}

function isValid(d, i) {
  if (!d.nullBitmap || d.nullBitmap.length === 0 || d.nullCount === 0) return true;
  const j = d.offset + i;
  return (d.nullBitmap[j >> 3] >> (j & 7)) & 1;
}
function floatTok(v) {
  if (Number.isNaN(v)) return { float: 'nan' };
  if (v === Infinity) return { float: 'inf' };
  if (v === -Infinity) return { float: '-inf' };
  if (Object.is(v, -0)) return { float: '-0.0' };
  return { float: String(v) };
}
function leToBigInt(words, start, n) {   // n 32-bit little-endian words, two's complement
  let v = 0n;
  for (let k = n - 1; k >= 0; k--) v = (v << 32n) | BigInt(words[start + k] >>> 0);
  if (words[start + n - 1] & 0x80000000) v -= 1n << BigInt(32 * n);
  return v;
}
function decStr(u, scale) {
  const neg = u < 0n; let s = (neg ? -u : u).toString();
  if (scale > 0) { s = s.padStart(scale + 1, '0'); s = s.slice(0, -scale) + '.' + s.slice(-scale); }
  return (neg ? '-' : '') + s;
}
const dec = new TextDecoder('utf-8', { fatal: true });
const UNIT = { 0: 1000000n, 1: 1000n, 2: 1n };   // SECOND, MILLISECOND, MICROSECOND -> us

function value(d, i) {   // d: arrow.Data, i: logical index within d
  if (!isValid(d, i)) return null;
  const t = d.type, j = d.offset + i;
  switch (t.typeId) {
    case Type.Bool: return Boolean((d.values[j >> 3] >> (j & 7)) & 1);
    case Type.Int: return { int: String(d.values[j]) };
    case Type.Float: return floatTok(Number(d.values[j]));
    case Type.Utf8: case Type.Binary: {
      const a = d.valueOffsets[j], b = d.valueOffsets[j + 1];
      const bytes = d.values.subarray(a, b);
      return t.typeId === Type.Utf8 ? dec.decode(bytes) : { bin: Buffer.from(bytes).toString('hex') };
    }
    case Type.LargeUtf8: case Type.LargeBinary: {
      const a = Number(d.valueOffsets[j]), b = Number(d.valueOffsets[j + 1]);
      const bytes = d.values.subarray(a, b);
      return t.typeId === Type.LargeUtf8 ? dec.decode(bytes) : { bin: Buffer.from(bytes).toString('hex') };
    }
    case Type.FixedSizeBinary: return { bin: Buffer.from(d.values.subarray(j * t.byteWidth, (j + 1) * t.byteWidth)).toString('hex') };
    case Type.Date: {
      const days = t.unit === 0 ? Number(d.values[j]) : Number(d.values[j]) / 86400000;  // DAY or MILLISECOND
      return { date: new Date(days * 86400000).toISOString().slice(0, 10) };
    }
    case Type.Timestamp: {
      const raw = BigInt(d.values[j]);  // values: BigInt64Array (apache-arrow >= 15)
      return { ts_us: (t.unit === 3 ? raw / 1000n : raw * UNIT[t.unit]).toString() };
    }
    case Type.Decimal: {
      const words = t.bitWidth / 32;  // values: Uint32Array
      return { dec: decStr(leToBigInt(d.values, j * words, words), t.scale) };
    }
    case Type.List: case Type.LargeList: {
      const a = Number(d.valueOffsets[j]), b = Number(d.valueOffsets[j + 1]);
      const c = d.children[0], out = [];
      for (let k = a; k < b; k++) out.push(value(c, k - c.offset));
      return out;
    }
    case Type.FixedSizeList: {
      const n = t.listSize, c = d.children[0], out = [];
      for (let k = j * n; k < (j + 1) * n; k++) out.push(value(c, k - c.offset));
      return out;
    }
    case Type.Struct: {
      const out = {};
      t.children.forEach((f, k) => { out[f.name] = value(d.children[k], i + d.offset - d.children[k].offset); });
      return { struct: out };
    }
    case Type.Dictionary: return value(d.dictionary.data[0], Number(d.values[j]));
    default: throw new Error(`unhandled arrow type ${t} (${t.typeId})`);
  }
}

const errorOf = (e) => ({ class: e?.constructor?.name ?? 'Error', message: String(e?.message ?? e) })

for await (const line of createInterface({ input: process.stdin })) {
  const req = JSON.parse(line)
  if (req.cmd === 'start') {
    out(problem ? { id: req.id, ok: false, unavailable: `parquet-wasm cannot be loaded: ${problem}` }
      : { id: req.id, ok: true, adapter: 'parquet-wasm', implementation: 'parquet-wasm (arrow-rs in WebAssembly)',
        version, roles: ['legacy'], ...(process.argv[3] ? { engine: process.argv[3] } : {}) })
  } else if (req.cmd === 'read') {
    let ipc
    try { // the library, as a user calls it
      ipc = wasm.readParquet(new Uint8Array(readFileSync(req.path))).intoIPCStream()
    } catch (e) {
      const oom = e instanceof RangeError && /allocat|memory|Array buffer/i.test(e.message)
      out({ id: req.id, outcome: oom ? 'oom' : 'rejected', error: errorOf(e) })
      continue
    }
    try { // our conversion: its failure is ours, not the library's
      const table = arrow.tableFromIPC(ipc)
      const rows = []
      for (const batch of table.batches) {
        for (let i = 0; i < batch.numRows; i++) rows.push(batch.data.children.map((c) => value(c, i)))
      }
      out({ id: req.id, outcome: 'read', columns: table.schema.fields.map((f) => f.name), rows })
    } catch (e) {
      out({ id: req.id, outcome: 'harness-error', error: errorOf(e) })
    }
  } else if (req.cmd === 'stop') {
    process.exit(0)
  }
}
