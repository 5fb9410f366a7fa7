// Where a wasm module's bytes go: node bench/wasm-size.mjs MODULE.wasm [TOP] prints JSON with
// the module's sections, its functions by size, and their bytes grouped by crate, by generic
// function (all monomorphizations of one function together) and by kind of code (formatting and
// panics, serde, JSON). MODULE.wasm must keep its name section with demangled names:
// wasm-bindgen's output (it demangles) optimized with `wasm-opt -Oz -g`, which is what
// scripts/bench measures. Sizes are body bytes of the code section (uncompressed), so groups
// add up to the code section; the data section (string constants, tables) is reported whole.

import fs from 'node:fs';

/** The sections of a wasm binary, and from them the function bodies with their names. */
export function analyzeWasm(bytes) {
  let pos = 8;
  const leb = () => {
    let result = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[pos++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  };
  const name = () => {
    const length = leb();
    const text = Buffer.from(bytes.subarray(pos, pos + length)).toString('utf8');
    pos += length;
    return text;
  };
  const SECTION = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'];
  const sections = [];
  let importedFunctions = 0;
  const bodies = [];
  const names = new Map();
  while (pos < bytes.length) {
    const id = bytes[pos++];
    const size = leb();
    const start = pos;
    let label = SECTION[id] ?? `section ${id}`;
    if (id === 0) label = `custom: ${name()}`;
    sections.push({ name: label, bytes: size });
    if (id === 2) {
      for (let i = 0, n = leb(); i < n; i++) {
        name();
        name();
        const kind = bytes[pos++];
        if (kind === 0) {
          importedFunctions++;
          leb();
        } else if (kind === 1) {
          pos++;
          const flags = leb();
          leb();
          if (flags & 1) leb();
        } else if (kind === 2) {
          const flags = leb();
          leb();
          if (flags & 1) leb();
        } else if (kind === 3) {
          pos += 2;
        } else {
          break;
        }
      }
    } else if (id === 10) {
      for (let i = 0, n = leb(); i < n; i++) {
        const bodySize = leb();
        bodies.push({ index: importedFunctions + i, bytes: bodySize });
        pos += bodySize;
      }
    } else if (label === 'custom: name') {
      while (pos < start + size) {
        const sub = bytes[pos++];
        const subSize = leb();
        const subEnd = pos + subSize;
        if (sub === 1) {
          for (let i = 0, n = leb(); i < n; i++) {
            const index = leb();
            names.set(index, name());
          }
        }
        pos = subEnd;
      }
    }
    pos = start + size;
  }
  // v0-demangled names carry each crate's disambiguator (`core[c5930c85a12de822]`): dropped.
  const functions = bodies.map((body) => ({ name: (names.get(body.index) ?? `function[${body.index}]`).replace(/\[[0-9a-f]{16}\]/g, ''), bytes: body.bytes }));
  return { total: bytes.length, sections, functions };
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

/** Kinds of code that cost bytes whatever crate they sit in. */
const KINDS = [
  ['formatting and panics (core::fmt, panic, Display/Debug impls)', (n) => /core::fmt|alloc::fmt|::fmt::|panic|Formatter|\bas core::fmt::(Display|Debug)>/.test(n)],
  ['serde (derived and library (de)serializers, serde_json)', (n) => /serde/.test(n)],
  ['allocation and collections (alloc, hashbrown, Vec/String growth)', (n) => /^(<)?(alloc|hashbrown|dlmalloc)::|RawVec|__rust_alloc|__rdl_|dlmalloc/.test(n)],
  ['wasm-bindgen glue (wasm_bindgen, js_sys, web_sys)', (n) => /wasm_bindgen|js_sys|web_sys|__wbg|__wbindgen/.test(n)],
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
    const m = /^[<&\s]*bai::([a-z_]+)(?:::([a-z_]+))?/.exec(f.name);
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
    by_crate: sumBy(functions, (f) => crateOf(f.name)).slice(0, top),
    by_bai_module: sumBy(bai, baiModule).slice(0, top),
    monomorphized: generic.slice(0, top),
    by_kind: KINDS.map(([kind, test]) => {
      const matched = functions.filter((f) => test(f.name));
      return { kind, bytes: matched.reduce((a, f) => a + f.bytes, 0), functions: matched.length };
    }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/wasm-size.mjs MODULE.wasm [TOP]');
    process.exit(2);
  }
  console.log(JSON.stringify(summarize(fs.readFileSync(file), Number(top ?? 20)), null, 1));
}
