/**
 * The attest API's view of the attesters: it asks each one for the same fact at the same base-chain
 * height and attestation time, accepts only byte-identical answers, and hands out a fact with at
 * least two signatures that DogeAttestation accepts as they are (sorted by signer, each checked here
 * against the fact and the domain before it leaves).
 *
 * Height: each attester reports the highest height it can sign (`signable_height`, its index tip
 * less 5); the panel picks the second highest of those, so two attesters can always sign while one
 * lags or is down.
 */
import http from "node:http";
import { getAddress } from "ethers";
import type { TypedDataField } from "ethers";
import {
  FACT_TYPES,
  RECEIPT_TYPES,
  attestationDomain,
  fastFactDigest,
  fastReceiptDigest,
  recoverDigestSigner,
} from "../../facts";
import type { FactTypeName } from "../../facts";
import {
  AttesterInfoJson,
  FactJson,
  FactParamsJson,
  ReceiptJson,
  SignedFactJson,
  SignedReceiptJson,
  factFromJson,
  factToJson,
  receiptFromJson,
  receiptToJson,
} from "../../attester/wire";
import { Refusal, kindOfStatus } from "../../errors";

export interface PanelOptions {
  /** Base URLs of the attesters' internal APIs (http://host:port). */
  attesters: readonly string[];
  /** Per-call timeout (default 5000 ms). */
  timeoutMs?: number;
  /** Unix seconds (default: the clock). */
  nowSeconds?: () => number;
  /**
   * How long one round of `/v1/info` answers (the height and set to sign at) is reused (default
   * 500 ms; 0 asks every time). Heights move once per block, so this saves three calls per fact.
   */
  infoCacheMs?: number;
  /**
   * How long a signed fact is handed out again for the same question at the same height and set
   * (default 3000 ms; 0 signs every time). Its attestedAt is then up to that old, far inside the
   * 15 minutes the contract allows; paid requests always get a fresh fact.
   */
  answerCacheMs?: number;
  /** Most answers kept (default 10,000; the oldest go first). */
  answerCacheSize?: number;
  /** Where an attester that did not answer is logged with its URL and the cause (never shown to clients). */
  log?: (event: string, fields: Record<string, unknown>) => void;
}

interface Answer<T> {
  /** The attester's internal base URL: for this module only, never in an answer to a client. */
  attester: string;
  /** Its number in the panel's list (1-based): how answers to clients name it. */
  index: number;
  ok: boolean;
  status: number;
  body: T | { error: { code: string; message: string; details?: unknown } } | null;
}

export interface TypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, string>;
}

export interface AttestedFact {
  fact: FactJson;
  typedData: TypedData;
  signatures: string[];
  signers: string[];
}

export interface AttestedReceipt {
  receipt: ReceiptJson;
  typedData: TypedData;
  signatures: string[];
  signers: string[];
}

interface Round {
  /** Where facts are signed: the second highest signable height (6 deep). */
  height: number;
  /** Where the L1 tip is signed: the second highest indexed height. */
  tipHeight: number;
  attesterSetId: string;
  domain: AttesterInfoJson["domain"];
  infos: Answer<AttesterInfoJson>[];
}

export class AttesterPanel {
  private readonly timeoutMs: number;
  private readonly nowSeconds: () => number;

  constructor(private readonly options: PanelOptions) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  }

  /** One keep-alive agent for all attesters: a fact costs two or three calls, so connection reuse matters. */
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  private call<T>(base: string, method: "GET" | "POST", path: string, body?: unknown): Promise<Answer<T>> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const index = this.options.attesters.indexOf(base) + 1;
    // The cause (a connection error names the host and port) goes to the log, not to the client.
    const failed = (cause: string): Answer<T> => {
      this.options.log?.("attester_unreachable", { attester: index, url: base, path, cause });
      return {
        attester: base,
        index,
        ok: false,
        status: 0,
        body: {
          error: { code: "UNREACHABLE", message: "the attester did not answer in time or refused the connection" },
        },
      };
    };
    return new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL(`${base}${path}`);
      } catch (error) {
        resolve(failed((error as Error).message));
        return;
      }
      const request = http.request(
        url,
        {
          method,
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: payload ? { "Content-Type": "application/json", "Content-Length": payload.length } : {},
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", (error) => resolve(failed(error.message)));
          response.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed: Answer<T>["body"] = null;
            try {
              parsed = text ? JSON.parse(text) : null;
            } catch {
              parsed = { error: { code: "BAD_ANSWER", message: "the attester answered something that is not JSON" } };
            }
            const status = response.statusCode ?? 0;
            resolve({ attester: base, index, ok: status >= 200 && status < 300, status, body: parsed });
          });
        },
      );
      // Headers and body go out as two writes: without TCP_NODELAY the body waits for the
      // attester's delayed ACK (tens of milliseconds on every call).
      request.setNoDelay(true);
      request.on("timeout", () => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      request.on("error", (error) => resolve(failed(error.message)));
      request.end(payload);
    });
  }

  /**
   * Asks the two attesters most likely to sign (highest signable height first) and, only when those
   * two do not give one identical answer, the rest: two signatures are all a fact needs.
   */
  private async ask<T>(round: Round, path: string, request: unknown): Promise<Answer<T>[]> {
    const height = (base: string) => {
      const info = round.infos.find((answer) => answer.attester === base);
      return info?.ok && info.body && "signable_height" in info.body ? info.body.signable_height : -Infinity;
    };
    const order = [...this.options.attesters].sort((a, b) => height(b) - height(a));
    const first = await Promise.all(order.slice(0, 2).map((base) => this.call<T>(base, "POST", path, request)));
    const agreed =
      first.every((answer) => answer.ok) &&
      first.length === 2 &&
      JSON.stringify(stripSignature(first[0].body)) === JSON.stringify(stripSignature(first[1].body));
    if (agreed) return first;
    const rest = await Promise.all(order.slice(2).map((base) => this.call<T>(base, "POST", path, request)));
    return [...first, ...rest];
  }

  /** Every attester's `/v1/info` (or why it did not answer), in the panel's order. */
  async infos(): Promise<Answer<AttesterInfoJson>[]> {
    return Promise.all(this.options.attesters.map((base) => this.call<AttesterInfoJson>(base, "GET", "/v1/info")));
  }

  private cachedRound: { at: number; value: Promise<Round> } | null = null;

  /** The height and set two attesters can sign at now, and the domain they sign under. */
  round(): Promise<Round> {
    const ttl = this.options.infoCacheMs ?? 500;
    const now = Date.now();
    if (ttl > 0 && this.cachedRound && now - this.cachedRound.at < ttl) return this.cachedRound.value;
    const value = this.freshRound();
    if (ttl > 0) {
      this.cachedRound = { at: now, value };
      value.catch(() => {
        this.cachedRound = null;
      });
    }
    return value;
  }

  private async freshRound(): Promise<Round> {
    const infos = await this.infos();
    const live = infos.filter((a) => a.ok && a.body && "signer" in a.body).map((a) => a.body as AttesterInfoJson);
    if (live.length < 2) throw unavailable("fewer than two attesters answer", infos);
    const heights = live.map((info) => info.signable_height).sort((a, b) => b - a);
    const height = heights[1];
    const tipHeight = live.map((info) => info.indexed_height).sort((a, b) => b - a)[1];
    if (height < 0)
      throw new Refusal("unavailable", "NOTHING_SIGNABLE", "the attesters' indexes are not 6 blocks deep yet", {
        heights,
      });
    const setId = majority(live.map((info) => info.attester_set_id ?? ""));
    const domainKey = majority(live.map((info) => JSON.stringify(info.domain)));
    if (!setId || !domainKey)
      throw unavailable("the attesters do not agree on the attester set or the contract", infos);
    return { height, tipHeight, attesterSetId: setId, domain: JSON.parse(domainKey), infos };
  }

  /**
   * A fact signed by at least two attesters, at the panel's height. `notBefore` (unix seconds) raises
   * attestedAt when a paid request was made later than the panel's clock says (an L2 running ahead).
   */
  async fact(type: FactTypeName, params: FactParamsJson, options: { notBefore?: number } = {}): Promise<AttestedFact> {
    const round = await this.round();
    const cacheMs = this.options.answerCacheMs ?? 3000;
    const cacheKey = `${type}|${JSON.stringify(params)}`;
    if (cacheMs > 0 && options.notBefore === undefined) {
      const cached = this.answers.get(cacheKey);
      if (
        cached &&
        cached.height === round.height &&
        cached.setId === round.attesterSetId &&
        Date.now() - cached.at < cacheMs
      )
        return cached.answer;
    }
    const answer = await this.freshFact(round, type, params, options);
    if (cacheMs > 0) {
      this.answers.delete(cacheKey);
      this.answers.set(cacheKey, { at: Date.now(), height: round.height, setId: round.attesterSetId, answer });
      if (this.answers.size > (this.options.answerCacheSize ?? 10_000))
        this.answers.delete(this.answers.keys().next().value as string);
    }
    return answer;
  }

  private readonly answers = new Map<string, { at: number; height: number; setId: string; answer: AttestedFact }>();

  private async freshFact(
    round: Round,
    type: FactTypeName,
    params: FactParamsJson,
    options: { notBefore?: number },
  ): Promise<AttestedFact> {
    const attestedAt = Math.max(this.nowSeconds(), options.notBefore ?? 0);
    // The tip is signed at the index tip itself (it counts nothing); every other fact 6 deep.
    const height = type === "L1_TIP" ? round.tipHeight : round.height;
    const request = { type, params, l1_height: height, attested_at: attestedAt, attester_set_id: round.attesterSetId };
    const answers = await this.ask<SignedFactJson>(round, "/v1/fact", request);
    const signed = quorum(answers, (body) => JSON.stringify(factToJson(factFromJson(body.fact))));
    const fact = factToJson(factFromJson(signed[0].fact));
    const typedData: TypedData = {
      domain: round.domain,
      types: { Fact: [...FACT_TYPES.Fact] },
      primaryType: "Fact",
      message: { ...fact },
    };
    const digest = fastFactDigest(domainOf(round.domain), factFromJson(fact));
    return { fact, typedData, ...checkedSignatures(signed, digest) };
  }

  /** A job receipt signed by at least two attesters. */
  async receipt(
    kind: "inscription" | "anchor",
    jobContract: string,
    jobId: string,
    l1Txid: string,
  ): Promise<AttestedReceipt> {
    const round = await this.round();
    const request = {
      kind,
      job_contract: jobContract,
      job_id: jobId,
      l1_txid: l1Txid,
      attested_at: this.nowSeconds(),
      attester_set_id: round.attesterSetId,
    };
    const answers = await this.ask<SignedReceiptJson>(round, "/v1/receipt", request);
    const signed = quorum(answers, (body) => JSON.stringify(receiptToJson(receiptFromJson(body.receipt))));
    const receipt = receiptToJson(receiptFromJson(signed[0].receipt));
    const typedData: TypedData = {
      domain: round.domain,
      types: { Receipt: [...RECEIPT_TYPES.Receipt] },
      primaryType: "Receipt",
      message: { ...receipt },
    };
    const digest = fastReceiptDigest(domainOf(round.domain), receiptFromJson(receipt));
    return { receipt, typedData, ...checkedSignatures(signed, digest) };
  }
}

/** An answer without its signature and signer: what two attesters must agree on byte for byte. */
function stripSignature(body: unknown): unknown {
  if (!body || typeof body !== "object") return body;
  const { signature: _signature, signer: _signer, ...rest } = body as Record<string, unknown>;
  return rest;
}

function majority(values: string[]): string | null {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  for (const [value, n] of counts) if (n >= 2 && value !== "") return value;
  return null;
}

/** What each attester said, as a client may see it: the attester by number, never by URL. */
function summary<T>(answers: Answer<T>[]) {
  return answers.map((a) => ({
    attester: a.index,
    status: a.status,
    ...(a.ok ? { answer: a.body } : { error: (a.body as { error?: unknown } | null)?.error ?? null }),
  }));
}

function unavailable<T>(message: string, answers: Answer<T>[]): Refusal {
  return new Refusal(
    "unavailable",
    "ATTESTERS_UNAVAILABLE",
    `${message}: a fact needs two of the three`,
    { attesters: summary(answers) },
    { retryAfterSeconds: 5 },
  );
}

/**
 * The answers two or more attesters gave identically. When two attesters refuse with the same
 * client error (an unknown inscription, say), that error is the answer; when they disagree, a clear
 * 502 with what each said.
 */
function quorum<T extends { signature: string; signer: string }>(
  answers: Answer<T>[],
  identity: (body: T) => string,
): T[] {
  const groups = new Map<string, T[]>();
  for (const answer of answers) {
    if (!answer.ok || !answer.body || "error" in answer.body) continue;
    const body = answer.body as T;
    let key: string;
    try {
      key = identity(body);
    } catch {
      continue;
    }
    groups.set(key, [...(groups.get(key) ?? []), body]);
  }
  for (const group of groups.values()) if (group.length >= 2) return group;
  const refusals = answers.filter((a) => !a.ok && a.status >= 400 && a.status < 500);
  const codes = new Map<string, Answer<T>[]>();
  for (const refusal of refusals) {
    const code = (refusal.body as { error?: { code?: string } } | null)?.error?.code ?? "";
    codes.set(code, [...(codes.get(code) ?? []), refusal]);
  }
  for (const [code, same] of codes) {
    if (same.length >= 2 && code !== "") {
      const error = (same[0].body as { error: { code: string; message: string; details?: Record<string, unknown> } })
        .error;
      throw new Refusal(kindOfStatus(same[0].status), code, error.message, {
        ...(error.details ?? {}),
        attesters: summary(answers),
      });
    }
  }
  const answered = answers.filter((a) => a.ok).length;
  if (answered >= 2)
    throw new Refusal(
      "upstream",
      "ATTESTERS_DISAGREE",
      "the attesters computed different facts; nothing is signed by two of them",
      { attesters: summary(answers) },
    );
  throw unavailable(`${answered} attester(s) signed`, answers);
}

function domainOf(domain: TypedData["domain"]) {
  return attestationDomain(BigInt(domain.chainId), domain.verifyingContract);
}

/**
 * Each signature recovered against the digest of the agreed fact (never pass on one the contract
 * would refuse), sorted by signer. Two good signatures are enough: the rest are not checked.
 */
function checkedSignatures(signed: { signature: string; signer: string }[], digest: string) {
  const bySigner = new Map<string, string>();
  const bad: string[] = [];
  for (const item of signed) {
    if (bySigner.size === 2) break;
    const recovered = recoverDigestSigner(digest, item.signature);
    if (recovered === null || recovered !== getAddress(item.signer)) bad.push(item.signer);
    else bySigner.set(recovered, item.signature);
  }
  const signers = [...bySigner.keys()].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  if (signers.length < 2) {
    throw new Refusal(
      "upstream",
      "BAD_ATTESTER_SIGNATURE",
      "fewer than two attesters' signatures recover to the attesters that sent them",
      { bad_signers: bad },
    );
  }
  return { signatures: signers.map((signer) => bySigner.get(signer)!), signers };
}
