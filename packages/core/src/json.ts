import { isUtf8 } from 'node:buffer';

/**
 * API.md §1: NaN and ±Infinity are written as the strings "NaN", "Infinity", "-Infinity"
 * so that every response stays valid JSON.
 */
export function nonFiniteReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return value;
}

export function toJson(value: unknown): string {
  return JSON.stringify(value, nonFiniteReplacer);
}

/** Deepest nesting of arrays and objects a JSON request body may have (the deepest the API reads is 4). */
export const MAX_JSON_DEPTH = 64;

/** A request body that is not JSON the API can read; `message` says why (the 400's detail). */
export class JsonBodyError extends Error {
  override readonly name = 'JsonBodyError';
  readonly kind = 'json';
}

/**
 * Offset of the first byte that is not part of valid UTF-8 (overlong forms, surrogates and
 * code points past U+10FFFF are not), or -1 when every byte is.
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    const follow = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
    if (follow === 0) return i;
    let cp = b & (0x3f >> follow);
    for (let k = 1; k <= follow; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < [0, 0x80, 0x800, 0x10000][follow] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += follow + 1;
  }
  return -1;
}

/** Offset of the bracket that opens the (max + 1)-th level of nesting, or -1. Strings are skipped. */
function tooDeepAt(bytes: Uint8Array, max: number): number {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 0x22) {
      for (i++; i < bytes.length && bytes[i] !== 0x22; i++) if (bytes[i] === 0x5c) i++;
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return i;
    } else if (b === 0x5d || b === 0x7d) {
      depth--;
    }
  }
  return -1;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first string or key of a parsed value holding an unpaired surrogate (walked without recursion). */
function loneSurrogateIn(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return v;
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return k;
        stack.push(item);
      }
    }
  }
  return undefined;
}

/**
 * A request body read as JSON: valid UTF-8, at most `maxDepth` nested arrays and objects
 * (so that nothing walking it afterwards can overflow the stack), valid JSON, and no
 * unpaired surrogate escaped into a string or key (protobuf strings are UTF-8 and cannot
 * carry one). Throws JsonBodyError saying which, and where.
 */
export function parseJsonBody(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): unknown {
  const bad = invalidUtf8At(bytes);
  if (bad >= 0) throw new JsonBodyError(`invalid UTF-8 at byte ${bad}`);
  const deep = tooDeepAt(bytes, maxDepth);
  if (deep >= 0) throw new JsonBodyError(`nested deeper than ${maxDepth} arrays and objects (at byte ${deep})`);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new JsonBodyError((err as Error).message);
  }
  // Only a \u escape can make an unpaired surrogate out of valid UTF-8.
  if (text.includes('\\u')) {
    const lone = loneSurrogateIn(value);
    if (lone !== undefined) throw new JsonBodyError(`${JSON.stringify(lone.length > 100 ? `${lone.slice(0, 100)}…` : lone)} is not valid Unicode text (an unpaired surrogate)`);
  }
  return value;
}
