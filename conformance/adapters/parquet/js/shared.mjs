// What the Node workers share: the error taxonomy's rule (docs/adapters.md#error-taxonomy; the same rule as
// conformance/adapters/taxonomy.py), the canonical text of a date, and a writer's side: its refusals and the values
// the harness tagged for it.

// The runtime's safety nets: what V8 and Node throw when code meets a state it did not expect (a property of
// undefined, a typed array or DataView out of bounds, Buffer's ERR_OUT_OF_RANGE). Never a refusal in a cause chain,
// unless declared by class and message: a dependency's own validation error thrown on purpose (uuid's TypeError).
const SAFETY_NETS = new Set(['TypeError', 'RangeError', 'ReferenceError'])
// A language assertion (node:assert's AssertionError, ERR_ASSERTION) is never a refusal, declared or not: it claims a
// state cannot occur, as Python's assert, Java's assert and Rust's assert! do (docs/adapters.md#error-taxonomy).
const isAssertion = (e) => classOf(e) === 'AssertionError' || e?.code === 'ERR_ASSERTION'

const messageOf = (e) => String(e?.message ?? e)
const classOf = (e) => e?.constructor?.name ?? 'Error'

// A worker's `refusals`: [class name, RegExp] pairs; an error of that very class (its constructor's name) whose
// message matches is a refusal. An error is `rejected` when its own class and message are declared and no cause in
// its chain (`e.cause`) is a safety net or an assertion; `oom` and `crash` (out of memory, out of stack) anywhere in
// the chain; `unhandled-error` otherwise.
export function outcomeOf (e, refusals) {
  const chain = []
  for (let c = e; c !== undefined && c !== null && chain.length < 8 && !chain.includes(c); c = c.cause) chain.push(c)
  if (chain.some((c) => c instanceof RangeError && /Maximum call stack size exceeded/.test(messageOf(c)))) return 'crash'
  if (chain.some((c) => c instanceof RangeError && /allocat|memory|Array buffer/i.test(messageOf(c)))) return 'oom'
  const refused = (c) => refusals.some(([cls, re]) => classOf(c) === cls && re.test(messageOf(c)))
  if (chain.some(isAssertion) || !refused(e)) return 'unhandled-error'
  if (chain.slice(1).some((c) => !refused(c) && SAFETY_NETS.has(classOf(c)))) return 'unhandled-error'
  return 'rejected'
}

// The answer's fields for what the library threw; our rule or our message failing on it (an object without a
// string form, a getter that throws) is ours: a harness error, never the library's outcome (docs/adapters.md#the-data-path).
export function libraryError (e, refusals) {
  try {
    return { outcome: outcomeOf(e, refusals), error: errorOf(e) }
  } catch (ours) {
    let text = 'an error without a message'
    try { text = String(ours?.message ?? ours) } catch {}
    return { outcome: 'harness-error', error: { class: 'Error', message: `sorting what the library threw: ${text}` } }
  }
}

// An error as the protocol carries it: the class (with Node's code, as Node prints it: `RangeError
// [ERR_OUT_OF_RANGE]`), and the message with each cause on a line of its own.
export function errorOf (e) {
  const code = typeof e?.code === 'string' ? ` [${e.code}]` : ''
  let message = messageOf(e)
  for (let c = e?.cause, n = 0; c !== undefined && c !== null && n < 8; c = c.cause, n++) {
    message += `\ncaused by ${classOf(c)}: ${messageOf(c)}`
  }
  return { class: classOf(e) + code, message }
}

// generators/canonical.py's date_text: days since 1970-01-01 as a proleptic Gregorian date, any year (a JS Date
// covers +-100 million days only, and a file can say any int32).
export function dateText (days) {
  const z = Number(days) + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0)
  const year = y >= 0 && y <= 9999 ? String(y).padStart(4, '0') : (y < 0 ? '-' : '+') + String(Math.abs(y)).padStart(4, '0')
  return `${year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
}

// A writer declines a table with a plain Error (`throw new Error('...')` is how a JS library refuses on purpose);
// a TypeError or RangeError from the runtime is not a refusal.
export const WRITE_REFUSALS = [['Error', /./]]

// A value the harness tagged where JSON cannot carry it (conformance/adapters/parquet/values.py): `$big` a BigInt,
// `$hex` bytes (as `bytes` makes them from the hex text), `$f` a float that is not finite; objects and arrays deeply.
export function revive (v, bytes) {
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) return v.map((x) => revive(x, bytes))
  if ('$big' in v) return BigInt(v.$big)
  if ('$hex' in v) return bytes(v.$hex)
  if ('$f' in v) return Number(v.$f)
  const o = {}
  for (const k in v) o[k] = revive(v[k], bytes)
  return o
}
