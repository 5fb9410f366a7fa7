// Reading the structure of a wasm binary: its sections, LEB128 numbers, names and import
// descriptors. One reader for the scripts that rename (short-names.mjs), strip (name-section.mjs)
// and measure (bench/wasm-size.mjs) the shipped modules, so a fix to the format's reading lands
// in all three.

const MAGIC = 0x6d736100; // "\0asm", little-endian
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Throws unless `bytes` starts like a wasm module. */
export function checkWasm(bytes, label = 'module') {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || view.getUint32(0, true) !== MAGIC) throw new Error(`${label} is not a wasm module`);
}

/** A cursor over a module's bytes. */
export class WasmReader {
  constructor(bytes, pos = 0) {
    this.bytes = bytes;
    this.pos = pos;
  }

  byte() {
    if (this.pos >= this.bytes.length) throw new Error('wasm: read past the end of the module');
    return this.bytes[this.pos++];
  }

  /** An unsigned LEB128 number (sizes, counts, indices), exact up to 2^53. */
  leb() {
    let result = 0;
    let scale = 1;
    let byte;
    do {
      byte = this.byte();
      result += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    return result;
  }

  /** A name: its byte length, then UTF-8. */
  name() {
    const length = this.leb();
    const end = this.pos + length;
    if (end > this.bytes.length) throw new Error('wasm: a name runs past the end of the module');
    const text = utf8.decode(this.bytes.subarray(this.pos, end));
    this.pos = end;
    return text;
  }

  /** Skips a table's or memory's limits. */
  limits() {
    const flags = this.leb();
    this.leb();
    if (flags & 1) this.leb();
  }

  /** Reads an import's descriptor (what follows its module and field names); returns its kind
   * (0 function, 1 table, 2 memory, 3 global, 4 tag). */
  importDescriptor() {
    const kind = this.byte();
    if (kind === 0) this.leb();
    else if (kind === 1) {
      this.byte();
      this.limits();
    } else if (kind === 2) this.limits();
    else if (kind === 3) this.pos += 2;
    else if (kind === 4) {
      this.byte();
      this.leb();
    } else throw new Error(`wasm: unknown import kind ${kind}`);
    return kind;
  }
}

/** The module's top-level sections in order: `id`, the custom section's `name` (else null), the
 * byte range [start, end) of the whole section and where its body starts (`body`, after the
 * custom name for custom sections). */
export function sections(bytes) {
  checkWasm(bytes);
  const reader = new WasmReader(bytes, 8);
  const out = [];
  while (reader.pos < bytes.length) {
    const start = reader.pos;
    const id = reader.byte();
    const size = reader.leb();
    const end = reader.pos + size;
    if (end > bytes.length) throw new Error(`wasm: section ${id} runs past the end of the module`);
    const name = id === 0 ? reader.name() : null;
    out.push({ id, name, start, body: reader.pos, end });
    reader.pos = end;
  }
  return out;
}

/** An unsigned LEB128 encoding of `value`. */
export function encodeLeb(value) {
  const out = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
}

/** A name as the binary writes it: byte length, then UTF-8. */
export function encodeName(text) {
  const raw = Buffer.from(text, 'utf8');
  return Buffer.concat([encodeLeb(raw.length), raw]);
}
