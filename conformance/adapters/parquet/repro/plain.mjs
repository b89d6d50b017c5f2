// What the Node scripts share: plain values (expected.json's form) from a reader's values. Inserted into each
// script after shared.mjs's dateText (reproducers.node).

function clockText (ns) { // ns: a BigInt within one day
  const seconds = ns / 1000000000n
  const fraction = ns % 1000000000n
  const two = (x) => String(x).padStart(2, '0')
  const text = `${two(seconds / 3600n)}:${two(seconds / 60n % 60n)}:${two(seconds % 60n)}`
  return fraction ? `${text}.${String(fraction).padStart(9, '0').replace(/0+$/, '')}` : text
}

function instantText (ns) {
  const day = 86400000000000n
  let days = ns / day
  if (ns % day < 0n) days -= 1n
  return `${dateText(Number(days))}T${clockText(ns - days * day)}`
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const int = (v) => (v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : String(v))
const plainFloat = (x) => (Number.isNaN(x) ? 'NaN' : x === Infinity ? 'Infinity' : x === -Infinity ? '-Infinity' : x)

// JSON text with sorted keys, -0 kept apart from 0
function text (v) {
  if (Array.isArray(v)) return `[${v.map(text).join(',')}]`
  if (v !== null && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${text(v[k])}`).join(',')}}`
  return Object.is(v, -0) ? '-0.0' : JSON.stringify(v)
}
