// Where a wasm module's bytes go: node bench/wasm-size.mjs MODULE.wasm [TOP] prints JSON with
// the module's sections, its functions by size, and their bytes grouped by crate, by generic
// function (all monomorphizations of one function together) and by kind of code (formatting and
// panics, serde, JSON, Rust's float code). MODULE.wasm must keep its name section with demangled
// names: wasm-bindgen's output (it demangles) optimized with `wasm-opt -Oz -g`, which is what
// scripts/build keeps of every shipped module in target/h-wasm/names/pkg/ (scripts/lib/wasm-pkg.sh;
// the shipped module is that copy without its names, byte for byte). Sizes are body bytes of the
// code section (uncompressed), so groups add up to the code section; the data section (string
// constants, tables) is reported whole.
//
//   node bench/wasm-size.mjs --role exec [TOP]    # the shipped executor (chat: bai), checked to be it
//   node bench/wasm-size.mjs --no-float-code exec # scripts/test: fails if Rust's float code is in it

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasNameSection, withoutNameSection } from '../scripts/lib/name-section.mjs';
import { WasmReader, sections } from '../scripts/lib/wasm-reader.mjs';

/** The sections of a wasm binary, and from them the function bodies with their names. */
export function analyzeWasm(bytes) {
  const SECTION = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'];
  const out = [];
  let importedFunctions = 0;
  const bodies = [];
  const names = new Map();
  for (const section of sections(bytes)) {
    const { id } = section;
    const label = id === 0 ? `custom: ${section.name}` : (SECTION[id] ?? `section ${id}`);
    // The size the section's header gives (custom sections: their name included).
    const headerSize = new WasmReader(bytes, section.start + 1);
    headerSize.leb();
    out.push({ name: label, bytes: section.end - headerSize.pos });
    const reader = new WasmReader(bytes, section.body);
    if (id === 2) {
      for (let i = 0, n = reader.leb(); i < n; i++) {
        reader.name();
        reader.name();
        if (reader.importDescriptor() === 0) importedFunctions++;
      }
    } else if (id === 10) {
      for (let i = 0, n = reader.leb(); i < n; i++) {
        const bodySize = reader.leb();
        bodies.push({ index: importedFunctions + i, bytes: bodySize });
        reader.pos += bodySize;
      }
    } else if (label === 'custom: name') {
      while (reader.pos < section.end) {
        const sub = reader.byte();
        const subSize = reader.leb();
        const subEnd = reader.pos + subSize;
        if (sub === 1) {
          for (let i = 0, n = reader.leb(); i < n; i++) {
            const index = reader.leb();
            names.set(index, reader.name());
          }
        }
        reader.pos = subEnd;
      }
    }
  }
  const sectionsOut = out;
  // v0-demangled names carry each crate's disambiguator (`core[c5930c85a12de822]`, leading
  // zeros left out: `serde_json[5feb70e3f436e82]`): dropped.
  const functions = bodies.map((body) => ({ name: (names.get(body.index) ?? `function[${body.index}]`).replace(/\[[0-9a-f]{1,16}\]/g, ''), bytes: body.bytes }));
  return { total: bytes.length, sections: sectionsOut, functions };
}

/** Without the trailing `::h0123…` hash and generic arguments: one entry per generic function. */
function genericName(name) {
  let out = '';
  let depth = 0;
  for (const ch of name.replace(/::h[0-9a-f]{16}$/, '')) {
    if (ch === '<') {
      if (depth === 0) out += '<…>';
      depth++;
    } else if (ch === '>') {
      depth = Math.max(0, depth - 1);
    } else if (depth === 0) {
      out += ch;
    }
  }
  return out;
}

/**
 * The crate a function's code belongs to: the first path segment of the implementing type for
 * `<Type as Trait>::f` (a derived `Deserialize` of a bai type is bai's code, made by serde's
 * derive: the `serde` kind below counts it too), else of the path.
 */
function crateOf(name) {
  const match = /^[<&*\s(\[]*(?:mut |const |dyn )?([A-Za-z_][A-Za-z0-9_]*)/.exec(name);
  if (!match) return '(other)';
  const first = match[1];
  if (/^function\[/.test(name) || first === 'function') return '(unnamed)';
  if (['u8', 'u16', 'u32', 'u64', 'usize', 'i8', 'i16', 'i32', 'i64', 'isize', 'f32', 'f64', 'str', 'bool', 'char'].includes(first)) return 'core';
  if (!name.includes('::')) return '(no crate: glue or intrinsics)';
  return first;
}

/**
 * Rust's float parsing and formatting: the standard library's `str::parse::<f64>` (core::num::
 * dec2flt, with its big-number fallback) and float `Display`/`Debug` (core::fmt::float over
 * core::num::flt2dec: Grisu with the Dragon fallback, their power-of-ten tables in the data
 * section), and serde_json's own (zmij or ryu to write an f64, its decimal parser to read one).
 * The executor leaves numbers to JavaScript (`js_sys::parse_float`, `dom::js::number_text`, the
 * masks' `serde_float_text`) so that none of it is linked: 23.7 KiB gzip the last time it crept
 * back (2546844); one `format!("{}", x)` and one `parse::<f64>()` in an executor function cost
 * 24 KB of code (15 KB of it `<f64 as Display>::fmt`) and 13 KB of tables (measured at 47ecf72).
 * Names as `v0` demangling writes them (`core::num::imp::flt2dec::…` on today's nightly),
 * disambiguators dropped.
 */
export const FLOAT_CODE = /core::num::(imp::)?(dec2flt|flt2dec|bignum|diy_float|fmt)::|core::fmt::float::|<core::fmt::Formatter>::(pad|write)_formatted_parts|<f(16|32|64|128) as core::(fmt::[A-Za-z]+|str::traits::FromStr)>|^<?(zmij|ryu)::|serde_json::de::.*(parse_decimal|parse_exponent|f64_from_parts|f64_long_from_parts)/;
export const FLOAT_KIND = 'Rust float parsing and formatting (core::num::dec2flt, flt2dec, float fmt; serde_json\'s zmij/ryu)';

/**
 * The name a function's bytes are counted under, for its crate and bai module. wasm-opt inlines
 * most of bai's code into two kinds of functions named after someone else: the shims wasm-bindgen
 * puts around each export (`chatsession_new externref shim multivalue shim`: 20 KB of the chat
 * module, the engine's constructor and what it calls), and the standard library's or js_sys's
 * generic code instantiated for a bai closure or async block (`js_sys::futures::
 * future_to_promise::<bai::bindings::perform::…::{closure#0}>`: 30 KB of the executor, the body
 * of `perform_action`). Both are counted as bai's: the shims together, the others under the
 * closure's bai path.
 */
const EXPORT_SHIMS = 'bai exports (shims + inlined code)';
function ownerName(name) {
  if (/ (externref|multivalue) shim$/.test(name)) return EXPORT_SHIMS;
  const closure = /^[^<]*::<(bai::[^<>]*\{closure#\d+\})/.exec(name);
  return closure ? closure[1] : name;
}

/** Kinds of code that cost bytes whatever crate they sit in (a function can be of several). */
const KINDS = [
  ['formatting and panics (core::fmt, panic, Display/Debug impls)', (n) => /core::fmt|alloc::fmt|::fmt::|panic|Formatter|\bas core::fmt::(Display|Debug)>/.test(n)],
  ['serde (derived and library (de)serializers, serde_json)', (n) => /serde/.test(n)],
  ['allocation and collections (alloc, hashbrown, Vec/String growth)', (n) => /^(<)?(alloc|hashbrown|dlmalloc)::|RawVec|__rust_alloc|__rdl_|dlmalloc/.test(n)],
  ['wasm-bindgen glue (wasm_bindgen, js_sys, web_sys)', (n) => /^<?(wasm_bindgen|js_sys|web_sys)\b|as (wasm_bindgen|js_sys|web_sys)::|__wbg|__wbindgen/.test(n)],
  [FLOAT_KIND, (n) => FLOAT_CODE.test(n)],
];

function sumBy(functions, key) {
  const groups = new Map();
  for (const f of functions) {
    const k = key(f);
    const group = groups.get(k) ?? { name: k, bytes: 0, functions: 0 };
    group.bytes += f.bytes;
    group.functions++;
    groups.set(k, group);
  }
  return [...groups.values()].sort((a, b) => b.bytes - a.bytes);
}

/** The summary scripts/bench puts in results.json (`size.where`) and results.md. */
export function summarize(bytes, top = 20) {
  const { total, sections, functions } = analyzeWasm(bytes);
  functions.sort((a, b) => b.bytes - a.bytes);
  const code = functions.reduce((a, f) => a + f.bytes, 0);
  // bai's own code by module (bai::dom::selector, bai::protocol::engine…), two levels deep.
  const baiModule = (f) => {
    const name = ownerName(f.name);
    if (name === EXPORT_SHIMS) return EXPORT_SHIMS;
    const m = /^[<&\s]*bai::([a-z_]+)(?:::([a-z_]+))?/.exec(name);
    return m ? `bai::${m[1]}${m[2] && m[2] !== m[2].toUpperCase() && /^[a-z_]+$/.test(m[2]) ? `::${m[2]}` : ''}` : null;
  };
  const bai = functions.filter((f) => baiModule(f));
  const generic = sumBy(functions, (f) => genericName(f.name)).filter((g) => g.functions > 1);
  return {
    total,
    sections: sections.sort((a, b) => b.bytes - a.bytes),
    code_bytes: code,
    functions: functions.length,
    top_functions: functions.slice(0, top).map((f) => ({ name: f.name.replace(/::h[0-9a-f]{16}$/, ''), bytes: f.bytes })),
    by_crate: sumBy(functions, (f) => (ownerName(f.name) === EXPORT_SHIMS ? 'bai' : crateOf(ownerName(f.name)))).slice(0, top),
    by_bai_module: sumBy(bai, baiModule).slice(0, top),
    monomorphized: generic.slice(0, top),
    by_kind: KINDS.map(([kind, test]) => {
      const matched = functions.filter((f) => test(ownerName(f.name)));
      return { kind, bytes: matched.reduce((a, f) => a + f.bytes, 0), functions: matched.length, largest: matched.slice(0, 5).map((f) => ({ name: f.name.replace(/::h[0-9a-f]{16}$/, ''), bytes: f.bytes })) };
    }),
  };
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The shipped module `extension/pkg/NAME_bg.wasm` (NAME: bai for the chat role, exec, background)
 * with its function names: the copy scripts/build keeps in target/h-wasm/names/pkg/, checked to
 * be the shipped module plus its name section and nothing else, so the names describe exactly
 * the code the extension ships. A BAI_FAST build ships its module unoptimized and with its names:
 * then that module itself, `fast: true`. Throws, saying what to run, when there is no such copy.
 */
export function shippedWithNames(name, root = ROOT) {
  const shippedFile = `extension/pkg/${name}_bg.wasm`;
  if (!fs.existsSync(path.join(root, shippedFile))) throw new Error(`${shippedFile} is missing: run scripts/build`);
  const shipped = fs.readFileSync(path.join(root, shippedFile));
  if (hasNameSection(shipped)) return { file: shippedFile, bytes: shipped, fast: true };
  const file = `target/h-wasm/names/pkg/${name}_bg.wasm`;
  if (!fs.existsSync(path.join(root, file))) {
    throw new Error(`${file} is missing: run scripts/build (it keeps each shipped module with its function names there)`);
  }
  const bytes = fs.readFileSync(path.join(root, file));
  let same;
  try {
    same = withoutNameSection(bytes).equals(shipped);
  } catch {
    same = false;
  }
  if (!same) {
    throw new Error(`${file} is not ${shippedFile} with names (built apart since?): run scripts/build`);
  }
  return { file, bytes, fast: false };
}

/**
 * scripts/test's guard: fails, naming the functions, when Rust's float code is in a shipped
 * module. Judges the optimized build only: a BAI_FAST build is not what ships (the precompiled
 * standard library, panic messages formatted with `{:?}`, which can link float formatting the
 * shipped build never has), so it is not checked, and says so.
 */
function checkNoFloatCode(name) {
  const { file, bytes, fast } = shippedWithNames(name);
  if (fast) {
    console.log(`extension/pkg/${name}_bg.wasm is a BAI_FAST build (unoptimized, panic messages): not checked; the check is for the shipped build (scripts/build)`);
    return;
  }
  const found = analyzeWasm(bytes).functions.filter((f) => FLOAT_CODE.test(f.name)).sort((a, b) => b.bytes - a.bytes);
  const total = found.reduce((a, f) => a + f.bytes, 0);
  if (found.length) {
    console.error(`extension/pkg/${name}_bg.wasm links Rust's float parsing or formatting: ${total} bytes of code in ${found.length} functions (${file}), e.g.`);
    for (const f of found.slice(0, 12)) console.error(`  ${f.bytes} B  ${f.name}`);
    console.error(`This module leaves numbers to JavaScript: an f64 written with format!/to_string/{:?}, read with parse::<f64>(), or written or read by serde_json brings Rust's float code back (23.7 KiB gzip the last time; the bytes above are only what kept its own name: more is inlined into the callers, and the power-of-ten tables are in the data section). Write and read numbers with dom::js::number_text / js_sys::parse_float (crate/src/dom/js.rs). \`node bench/wasm-size.mjs --role ${name}\` lists the whole module.`);
    process.exit(1);
  }
  console.log(`extension/pkg/${name}_bg.wasm: no Rust float parsing or formatting code (checked ${analyzeWasm(bytes).functions.length} function names in ${file})`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  process.on('uncaughtException', (error) => {
    console.error(`bench/wasm-size.mjs: ${error.message}`);
    process.exit(1);
  });
  if (args[0] === '--no-float-code' && args[1]) {
    checkNoFloatCode(args[1]);
  } else if (args[0] === '--role' && args[1]) {
    const { file, bytes } = shippedWithNames(args[1]);
    console.log(JSON.stringify({ file, ...summarize(bytes, Number(args[2] ?? 20)) }, null, 1));
  } else if (args[0] && !args[0].startsWith('--')) {
    console.log(JSON.stringify(summarize(fs.readFileSync(args[0]), Number(args[1] ?? 20)), null, 1));
  } else {
    console.error('usage: node bench/wasm-size.mjs MODULE.wasm [TOP] | --role NAME [TOP] | --no-float-code NAME');
    process.exit(2);
  }
}
