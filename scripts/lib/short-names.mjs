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
import { WasmReader, encodeLeb, encodeName, sections } from './wasm-reader.mjs';

const [wasmPath, ...gluePaths] = process.argv.slice(2);
if (!wasmPath || gluePaths.length === 0) {
  throw new Error('usage: short-names.mjs MODULE_bg.wasm GLUE.js [MORE_GLUE.js...]');
}

const bytes = fs.readFileSync(wasmPath);
const glues = gluePaths.map((path) => fs.readFileSync(path, 'utf8'));

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
for (const section of sections(bytes)) {
  const { id } = section;
  if (id !== 2 && id !== 7) {
    parts.push(bytes.subarray(section.start, section.end));
    continue;
  }
  const reader = new WasmReader(bytes, section.body);
  const entries = [];
  const count = reader.leb();
  for (let i = 0; i < count; i++) {
    if (id === 2) {
      const module = reader.name();
      const field = reader.name();
      const descriptorStart = reader.pos;
      reader.importDescriptor();
      const newField = isShortened(field) ? shortName(field) : field;
      entries.push(Buffer.concat([encodeName(module), encodeName(newField), bytes.subarray(descriptorStart, reader.pos)]));
    } else {
      const field = reader.name();
      const descriptorStart = reader.pos;
      reader.byte();
      reader.leb();
      const newField = isShortenedExport(field) ? shortName(field) : field;
      entries.push(Buffer.concat([encodeName(newField), bytes.subarray(descriptorStart, reader.pos)]));
    }
  }
  if (reader.pos !== section.end) throw new Error(`short-names: section ${id} did not parse to its end`);
  const body = Buffer.concat([encodeLeb(count), ...entries]);
  parts.push(Buffer.from([id]), encodeLeb(body.length), body);
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
