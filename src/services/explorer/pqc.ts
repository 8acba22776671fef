/**
 * The post-quantum key registry: bindings between a Dogecoin address and an ML-DSA-44 public key.
 * A registration is signed twice over the same text (by the address's key with Dogecoin message
 * signing, and by the ML-DSA key), a revocation by the address's key; both carry an issue time
 * that must be recent and later than the address's previous registry action, so old signed
 * requests cannot be replayed. A binding is anchored once an OP_RETURN `PQC1 || sha256(key)` is in
 * the index. State lives in its own SQLite database (schema `dogeos-pqc`).
 */
import { ml_dsa44 } from "@noble/post-quantum/ml-dsa.js";
import { DogeNetwork, bytesToHex, sha256, decodeAddress } from "../../doge";
import { verifyMessageNative } from "../../doge/message-native";
import { Migration, Sqlite } from "../../db/sqlite";
import { Refusal, badRequest, conflict, notFound } from "../../errors";

export const PQC_SCHEMA = "dogeos-pqc";
export const PQC_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "ML-DSA-44 key bindings",
    sql: `
CREATE TABLE pqc_bindings (
  address TEXT NOT NULL,
  key_sha256 TEXT NOT NULL,
  public_key BLOB NOT NULL,
  issued_at INTEGER NOT NULL,
  registered_at INTEGER NOT NULL,
  revoked_at INTEGER,
  revoke_issued_at INTEGER,
  PRIMARY KEY (address, key_sha256)
);
CREATE UNIQUE INDEX pqc_one_active_per_address ON pqc_bindings (address) WHERE revoked_at IS NULL;
CREATE INDEX pqc_by_key ON pqc_bindings (key_sha256);
CREATE TABLE pqc_last_action (address TEXT PRIMARY KEY, issued_at INTEGER NOT NULL);
`,
  },
];

/** ML-DSA-44 sizes (FIPS 204): public key 1,312 bytes, signature 2,420 bytes. */
export const MLDSA44_PUBLIC_KEY_BYTES = 1312;
export const MLDSA44_SIGNATURE_BYTES = 2420;
/** Magic of the anchoring OP_RETURN: ASCII "PQC1", then the key's SHA-256. */
export const PQC_ANCHOR_MAGIC = "50514331";
const MAX_CLOCK_SKEW_SECONDS = 600;

export function registrationMessage(address: string, keySha256: string, issuedAt: number): string {
  return `DogeOS PQC key registration\naddress: ${address}\nml-dsa-44 key sha256: ${keySha256}\nissued at: ${issuedAt}\n`;
}

export function revocationMessage(address: string, keySha256: string, issuedAt: number): string {
  return `DogeOS PQC key revocation\naddress: ${address}\nml-dsa-44 key sha256: ${keySha256}\nissued at: ${issuedAt}\n`;
}

export interface Binding {
  address: string;
  keySha256: string;
  publicKeyHex: string;
  registeredAt: number;
  revokedAt: number | null;
  anchored: { txid: string; blockHeight: number } | null;
}

export interface AnchorLookup {
  /** First OP_RETURN whose payload is exactly PQC1 || keySha256, if any. */
  firstAnchor(payloadHex: string): { txid: string; blockHeight: number } | null;
}

export class PqcRegistry {
  private readonly s;

  constructor(
    private readonly db: Sqlite,
    private readonly network: DogeNetwork,
    private readonly anchors: AnchorLookup,
    private readonly clock: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    this.s = {
      byAddress: db.prepare(
        "SELECT address, key_sha256, public_key, registered_at, revoked_at FROM pqc_bindings WHERE address = ? AND revoked_at IS NULL",
      ),
      byKey: db.prepare(
        "SELECT address, key_sha256, public_key, registered_at, revoked_at FROM pqc_bindings WHERE key_sha256 = ? ORDER BY revoked_at IS NOT NULL, registered_at DESC LIMIT 1",
      ),
      exact: db.prepare("SELECT revoked_at FROM pqc_bindings WHERE address = ? AND key_sha256 = ?"),
      insert: db.prepare(
        "INSERT INTO pqc_bindings (address, key_sha256, public_key, issued_at, registered_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(address, key_sha256) DO UPDATE SET public_key = excluded.public_key, issued_at = excluded.issued_at, registered_at = excluded.registered_at, revoked_at = NULL, revoke_issued_at = NULL",
      ),
      revoke: db.prepare(
        "UPDATE pqc_bindings SET revoked_at = ?, revoke_issued_at = ? WHERE address = ? AND key_sha256 = ? AND revoked_at IS NULL",
      ),
      lastAction: db.prepare("SELECT issued_at FROM pqc_last_action WHERE address = ?"),
      setLastAction: db.prepare(
        "INSERT INTO pqc_last_action (address, issued_at) VALUES (?, ?) ON CONFLICT(address) DO UPDATE SET issued_at = excluded.issued_at",
      ),
    };
  }

  private toBinding(row: {
    address: string;
    key_sha256: string;
    public_key: Buffer;
    registered_at: number;
    revoked_at: number | null;
  }): Binding {
    return {
      address: row.address,
      keySha256: row.key_sha256,
      publicKeyHex: row.public_key.toString("hex"),
      registeredAt: row.registered_at,
      revokedAt: row.revoked_at,
      anchored: this.anchors.firstAnchor(PQC_ANCHOR_MAGIC + row.key_sha256),
    };
  }

  private checkIssuedAt(address: string, issuedAt: unknown): number {
    if (typeof issuedAt !== "number" || !Number.isSafeInteger(issuedAt))
      throw badRequest("INVALID_ISSUED_AT", "issued_at must be a unix time in seconds", { field: "issued_at" });
    const now = this.clock();
    if (Math.abs(now - issuedAt) > MAX_CLOCK_SKEW_SECONDS) {
      throw badRequest("STALE_REQUEST", `issued_at must be within ${MAX_CLOCK_SKEW_SECONDS} s of the server's time`, {
        issued_at: issuedAt,
        server_time: now,
      });
    }
    const last = this.s.lastAction.get(address) as { issued_at: number } | undefined;
    if (last && issuedAt <= last.issued_at) {
      throw new Refusal(
        "conflict",
        "REPLAYED_REQUEST",
        "issued_at must be later than the address's previous registry action",
        { issued_at: issuedAt, previous: last.issued_at },
      );
    }
    return issuedAt;
  }

  private checkDogecoinSignature(address: string, signature: unknown, message: string): void {
    if (typeof signature !== "string")
      throw badRequest("INVALID_SIGNATURE", "dogecoin_signature must be a base64 string", {
        field: "dogecoin_signature",
      });
    const decoded = decodeAddress(address, this.network);
    if (decoded.type !== "pubkeyhash")
      throw badRequest("ADDRESS_NOT_KEY", "only P2PKH addresses can sign messages", { field: "address" });
    if (!verifyMessageNative(address, signature, message, this.network)) {
      throw new Refusal(
        "unauthorized",
        "BAD_DOGECOIN_SIGNATURE",
        "the Dogecoin message signature does not match the address",
      );
    }
  }

  register(
    address: string,
    publicKey: Uint8Array,
    body: { issued_at?: unknown; dogecoin_signature?: unknown; mldsa_signature?: unknown },
  ): { binding: Binding; created: boolean } {
    if (publicKey.length !== MLDSA44_PUBLIC_KEY_BYTES) {
      throw badRequest("INVALID_PUBLIC_KEY", `an ML-DSA-44 public key has ${MLDSA44_PUBLIC_KEY_BYTES} bytes`, {
        field: "mldsa_public_key",
        length: publicKey.length,
      });
    }
    const keySha256 = bytesToHex(sha256(publicKey));
    const issuedAt = this.checkIssuedAt(address, body.issued_at);
    const message = registrationMessage(address, keySha256, issuedAt);
    this.checkDogecoinSignature(address, body.dogecoin_signature, message);
    const mldsaSignature =
      typeof body.mldsa_signature === "string" && /^[0-9a-fA-F]+$/.test(body.mldsa_signature)
        ? Buffer.from(body.mldsa_signature, "hex")
        : null;
    if (!mldsaSignature || mldsaSignature.length !== MLDSA44_SIGNATURE_BYTES) {
      throw badRequest("INVALID_SIGNATURE", `mldsa_signature must be ${MLDSA44_SIGNATURE_BYTES} bytes of hex`, {
        field: "mldsa_signature",
      });
    }
    let valid = false;
    try {
      valid = ml_dsa44.verify(mldsaSignature, new TextEncoder().encode(message), publicKey);
    } catch {
      valid = false;
    }
    if (!valid)
      throw new Refusal(
        "unauthorized",
        "BAD_MLDSA_SIGNATURE",
        "the ML-DSA-44 signature does not verify with the given key",
      );

    return this.db.transaction(() => {
      const active = this.s.byAddress.get(address) as { key_sha256: string } | undefined;
      if (active && active.key_sha256 !== keySha256) {
        throw conflict("ADDRESS_ALREADY_BOUND", "the address is bound to another key; revoke it first", {
          key_sha256: active.key_sha256,
        });
      }
      const now = this.clock();
      if (!active) this.s.insert.run(address, keySha256, Buffer.from(publicKey), issuedAt, now);
      this.s.setLastAction.run(address, issuedAt);
      const row = this.s.byAddress.get(address) as Parameters<PqcRegistry["toBinding"]>[0];
      return { binding: this.toBinding(row), created: !active };
    })();
  }

  revoke(address: string, keySha256: string, body: { issued_at?: unknown; dogecoin_signature?: unknown }): Binding {
    const issuedAt = this.checkIssuedAt(address, body.issued_at);
    this.checkDogecoinSignature(address, body.dogecoin_signature, revocationMessage(address, keySha256, issuedAt));
    return this.db.transaction(() => {
      const changed = this.s.revoke.run(this.clock(), issuedAt, address, keySha256).changes;
      if (changed === 0)
        throw notFound("BINDING_NOT_FOUND", "no active binding of this key to this address", {
          address,
          key_sha256: keySha256,
        });
      this.s.setLastAction.run(address, issuedAt);
      const row = this.db
        .prepare(
          "SELECT address, key_sha256, public_key, registered_at, revoked_at FROM pqc_bindings WHERE address = ? AND key_sha256 = ?",
        )
        .get(address, keySha256);
      return this.toBinding(row as Parameters<PqcRegistry["toBinding"]>[0]);
    })();
  }

  byAddress(address: string): Binding | null {
    const row = this.s.byAddress.get(address) as Parameters<PqcRegistry["toBinding"]>[0] | undefined;
    return row ? this.toBinding(row) : null;
  }

  byKey(keySha256: string): Binding | null {
    const row = this.s.byKey.get(keySha256) as Parameters<PqcRegistry["toBinding"]>[0] | undefined;
    return row ? this.toBinding(row) : null;
  }

  /** Verifies an ML-DSA-44 signature over `message` with the key bound to `address`. */
  verify(address: string, message: Uint8Array, signature: Uint8Array): { valid: boolean; binding: Binding } {
    const binding = this.byAddress(address);
    if (!binding) throw notFound("BINDING_NOT_FOUND", "the address has no active ML-DSA-44 key", { address });
    let valid = false;
    if (signature.length === MLDSA44_SIGNATURE_BYTES) {
      try {
        valid = ml_dsa44.verify(signature, message, Buffer.from(binding.publicKeyHex, "hex"));
      } catch {
        valid = false;
      }
    }
    return { valid, binding };
  }
}

export function bindingJson(binding: Binding) {
  return {
    address: binding.address,
    key_sha256: binding.keySha256,
    mldsa_public_key: binding.publicKeyHex,
    algorithm: "ML-DSA-44",
    registered_at: binding.registeredAt,
    revoked_at: binding.revokedAt,
    anchored: binding.anchored !== null,
    anchor: binding.anchored ? { txid: binding.anchored.txid, block_height: binding.anchored.blockHeight } : null,
  };
}
