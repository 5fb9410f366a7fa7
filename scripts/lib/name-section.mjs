// The name section of a wasm module (function names, custom section "name"): what tells a
// function's bytes apart, and nothing the browser needs.
//
//   node scripts/lib/name-section.mjs strip IN.wasm OUT.wasm
//
// scripts/lib/wasm-pkg.sh optimizes each shipped module once, with `wasm-opt -g` so the names
// survive, keeps that copy for bench/wasm-size.mjs and the float-code guard, and ships it with this
// section removed. Removing the section leaves every other byte as it was; `wasm-opt --strip-debug`
// would not (it writes the module anew: 590 bytes more code for the chat module, measured).

import fs from 'node:fs';
import { sections } from './wasm-reader.mjs';

/** Whether the module has a name section. */
export function hasNameSection(bytes) {
  return sections(bytes).some((s) => s.id === 0 && s.name === 'name');
}

/** The module without its name section; every other byte unchanged. */
export function withoutNameSection(bytes) {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const kept = sections(buffer).filter((s) => !(s.id === 0 && s.name === 'name'));
  return Buffer.concat([buffer.subarray(0, 8), ...kept.map((s) => buffer.subarray(s.start, s.end))]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, input, output] = process.argv.slice(2);
  if (command !== 'strip' || !input || !output) {
    console.error('usage: node scripts/lib/name-section.mjs strip IN.wasm OUT.wasm');
    process.exit(2);
  }
  fs.writeFileSync(output, withoutNameSection(fs.readFileSync(input)));
}
