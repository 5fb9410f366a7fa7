// Shortens the names wasm-bindgen gives the imports between a module and its glue, and the
// exports only the glue calls (closure shims), in the wasm and in the glue together:
//
//   node scripts/lib/short-names.mjs MODULE_bg.wasm GLUE.js [MORE_GLUE.js...]
//
// wasm-bindgen names every import `__wbg_<name>_<16 hex digits>` and each closure shim export
// after its full Rust type (up to 334 characters): the executor's 205 imports and 5 shims carried
// 8 KB of names, written twice (the wasm's import/export sections and the glue) and, the hex
// being random, compressing poorly. Only the module and its glue see these names (the glue's
// public functions keep theirs), so they become `w0`, `w1`, ...: same bindings, same behaviour.
// Run right after wasm-bindgen, before wasm-opt and wasm2js. Fails (and leaves the files alone)
// if a name is not found in the glue or a short name is already a word there.

import fs from 'node:fs';

const [wasmPath, ...gluePaths] = process.argv.slice(2);
if (!wasmPath || gluePaths.length === 0) {
  throw new Error('usage: short-names.mjs MODULE_bg.wasm GLUE.js [MORE_GLUE.js...]');
}

const bytes = fs.readFileSync(wasmPath);
const glues = gluePaths.map((path) => fs.readFileSync(path, 'utf8'));

let pos = 0;
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
const encodeLeb = (value) => {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
};
const readName = () => {
  const length = leb();
  const text = bytes.subarray(pos, pos + length).toString('utf8');
  pos += length;
  return text;
};
const encodeName = (text) => {
  const raw = Buffer.from(text, 'utf8');
  return Buffer.concat([encodeLeb(raw.length), raw]);
};

if (bytes.readUInt32LE(0) !== 0x6d736100) throw new Error(`short-names: ${wasmPath} is not wasm`);

// Which names to shorten: every import (all come from the glue), and the exports wasm-bindgen
// names after a Rust path (`wasm_bindgen_<hash>___convert__closures...`); the public functions,
// `memory` and the `__wbindgen_*` entry points keep their names.
const isShortened = (name) => /^__wbg_|^__wbindgen_/.test(name);
const isShortenedExport = (name) => /^wasm_bindgen_[0-9a-f]+___/.test(name);

const renames = new Map();
let next = 0;
const shortName = (name) => {
  if (!renames.has(name)) {
    let short;
    do short = `w${(next++).toString(36)}`;
    while (glues.some((glue) => wordRegex(short).test(glue)));
    renames.set(name, short);
  }
  return renames.get(name);
};
function wordRegex(word) {
  return new RegExp(`(?<![\\w$])${word.replace(/\$/g, '\\$')}(?![\\w$])`, 'g');
}

const parts = [bytes.subarray(0, 8)];
pos = 8;
while (pos < bytes.length) {
  const sectionStart = pos;
  const id = bytes[pos++];
  const size = leb();
  const bodyStart = pos;
  const end = bodyStart + size;
  if (id === 2 || id === 7) {
    const entries = [];
    const count = leb();
    for (let i = 0; i < count; i++) {
      if (id === 2) {
        const module = readName();
        const field = readName();
        const descriptorStart = pos;
        const kind = bytes[pos++];
        if (kind === 0) leb();
        else if (kind === 1) {
          pos++;
          const flags = leb();
          leb();
          if (flags & 1) leb();
        } else if (kind === 2) {
          const flags = leb();
          leb();
          if (flags & 1) leb();
        } else if (kind === 3) pos += 2;
        else if (kind === 4) {
          pos++;
          leb();
        } else throw new Error(`short-names: unknown import kind ${kind}`);
        const newField = isShortened(field) ? shortName(field) : field;
        entries.push(Buffer.concat([encodeName(module), encodeName(newField), bytes.subarray(descriptorStart, pos)]));
      } else {
        const field = readName();
        const descriptorStart = pos;
        pos++;
        leb();
        const newField = isShortenedExport(field) ? shortName(field) : field;
        entries.push(Buffer.concat([encodeName(newField), bytes.subarray(descriptorStart, pos)]));
      }
    }
    if (pos !== end) throw new Error(`short-names: section ${id} did not parse to its end`);
    const body = Buffer.concat([encodeLeb(count), ...entries]);
    parts.push(Buffer.from([id]), encodeLeb(body.length), body);
  } else {
    parts.push(bytes.subarray(sectionStart, end));
  }
  pos = end;
}

const renamed = glues.map((glue) => glue);
if (renames.size === 0) throw new Error('short-names: no import to rename');
for (const [name, short] of renames) {
  let found = 0;
  for (let i = 0; i < renamed.length; i++) {
    renamed[i] = renamed[i].replace(wordRegex(name), () => {
      found++;
      return short;
    });
  }
  if (found === 0) throw new Error(`short-names: ${name} is not in the glue`);
}

fs.writeFileSync(wasmPath, Buffer.concat(parts));
gluePaths.forEach((path, i) => fs.writeFileSync(path, renamed[i]));
