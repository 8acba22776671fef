/**
 * The part of Node's Buffer that src/doge uses (hex and base64 in and out, alloc), for the browser
 * bundle of the development wallet: the bundler injects this as the global `Buffer`.
 */
const HEX = "0123456789abcdef";

class BrowserBuffer extends Uint8Array {
  toString(encoding?: string): string {
    if (encoding === "hex") {
      let out = "";
      for (const byte of this) out += HEX[byte >> 4] + HEX[byte & 15];
      return out;
    }
    if (encoding === "base64") {
      let binary = "";
      for (const byte of this) binary += String.fromCharCode(byte);
      return btoa(binary);
    }
    return new TextDecoder().decode(this);
  }
}

function from(
  value: string | ArrayBuffer | ArrayLike<number>,
  encodingOrOffset?: string | number,
  length?: number,
): BrowserBuffer {
  if (typeof value === "string") {
    if (encodingOrOffset === "hex") {
      if (value.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(value)) throw new TypeError("not an even-length hex string");
      const out = new BrowserBuffer(value.length / 2);
      for (let i = 0; i < out.length; i++) out[i] = parseInt(value.slice(2 * i, 2 * i + 2), 16);
      return out;
    }
    if (encodingOrOffset === "base64") {
      const binary = atob(value);
      const out = new BrowserBuffer(binary.length);
      for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
      return out;
    }
    return new BrowserBuffer(new TextEncoder().encode(value));
  }
  if (value instanceof ArrayBuffer)
    return new BrowserBuffer(value, typeof encodingOrOffset === "number" ? encodingOrOffset : 0, length);
  return new BrowserBuffer(value);
}

export const Buffer = Object.assign(BrowserBuffer, { from, alloc: (size: number) => new BrowserBuffer(size) });
