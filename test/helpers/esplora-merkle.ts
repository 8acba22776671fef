/**
 * Test-side readers of the two merkle proofs the Esplora surface serves, written from the formats'
 * definitions (Electrum's blockchain.transaction.get_merkle; bitcoind's CMerkleBlock and
 * CPartialMerkleTree, Bitcoin Core src/merkleblock.cpp), not from the server's code.
 */
import { createHash } from "node:crypto";

const sha256d = (data: Buffer) => createHash("sha256").update(createHash("sha256").update(data).digest()).digest();
const internal = (displayHex: string) => Buffer.from(displayHex, "hex").reverse();
const display = (bytes: Buffer) => Buffer.from(bytes).reverse().toString("hex");

/** The merkle root an Electrum branch proves for `txid` at `pos` (display hex). */
export function rootFromBranch(txid: string, branch: string[], pos: number): string {
  let hash = internal(txid);
  let index = pos;
  for (const sibling of branch) {
    const other = internal(sibling);
    hash = index & 1 ? sha256d(Buffer.concat([other, hash])) : sha256d(Buffer.concat([hash, other]));
    index >>= 1;
  }
  return display(hash);
}

/** A merkleblock's header, transaction count, the root it proves and the txids it matches. */
export function readMerkleBlock(hex: string): {
  header: string;
  transactions: number;
  root: string;
  matched: string[];
} {
  const bytes = Buffer.from(hex, "hex");
  let offset = 0;
  const take = (n: number) => {
    if (offset + n > bytes.length) throw new Error("merkleblock ends early");
    const part = bytes.subarray(offset, offset + n);
    offset += n;
    return part;
  };
  const varint = () => {
    const first = take(1)[0];
    if (first < 0xfd) return first;
    if (first === 0xfd) return take(2).readUInt16LE(0);
    return take(4).readUInt32LE(0);
  };
  const header = take(80).toString("hex");
  const transactions = take(4).readUInt32LE(0);
  const hashes = Array.from({ length: varint() }, () => Buffer.from(take(32)));
  const flagBytes = take(varint());
  if (offset !== bytes.length) throw new Error("bytes after the merkleblock");
  const width = (height: number) => (transactions + (1 << height) - 1) >> height;
  let height = 0;
  while (width(height) > 1) height++;
  let bit = 0;
  let used = 0;
  const matched: string[] = [];
  const walk = (h: number, index: number): Buffer => {
    const flag = (flagBytes[bit >> 3] >> (bit & 7)) & 1;
    bit++;
    if (h === 0 || !flag) {
      const hash = hashes[used++];
      if (h === 0 && flag) matched.push(display(hash));
      return hash;
    }
    const left = walk(h - 1, index * 2);
    const right = index * 2 + 1 < width(h - 1) ? walk(h - 1, index * 2 + 1) : left;
    return sha256d(Buffer.concat([left, right]));
  };
  const root = display(walk(height, 0));
  if (used !== hashes.length) throw new Error("hashes left over");
  return { header, transactions, root, matched };
}

/** The merkle root field of an 80-byte header (display hex). */
export const headerMerkleRoot = (headerHex: string) => display(Buffer.from(headerHex, "hex").subarray(36, 68));

/** The block id of an 80-byte header. */
export const headerId = (headerHex: string) => display(sha256d(Buffer.from(headerHex, "hex")));
