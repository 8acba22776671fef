/**
 * Facts from the attest API: fetched and verified offline (fetchVerifiedFact), or paid for on the
 * L2 and answered fresh (requestFreshFact: requestFee, requestFact, POST /api/attest/fulfill, wait
 * until the request is fulfilled, read the stored fact). Each step is exported on its own too.
 */
import type { Contract, ContractTransactionReceipt } from "ethers";
import { attestClient } from "./clients";
import { DogeosSdkError } from "./errors";
import { attestApiQuery, factKeys, type FactQuery } from "./keys";
import { readFact, type AttesterSet, type StoredFact } from "./attestation";
import { verifyAttestedFact, type AttestedFactAnswer, type VerifiedFact } from "./verify";

/** IDogeAttestation.RequestStatus. */
export const REQUEST_STATUS = { None: 0, Open: 1, Fulfilled: 2, Refunded: 3 } as const;

const errorOf = (error: unknown): { code?: string; message?: string } =>
  ((error as { error?: { code?: string; message?: string } })?.error ?? {}) as { code?: string; message?: string };

/** GET the fact of `query` from the attest API at `origin` and verify it against `trusted` (offline once fetched). */
export async function fetchVerifiedFact(
  origin: string,
  query: FactQuery,
  trusted: AttesterSet,
  options: { fetch?: typeof fetch } = {},
): Promise<VerifiedFact & { answer: AttestedFactAnswer }> {
  const { path, params } = attestApiQuery(query);
  const client = attestClient(origin, options.fetch ? { fetch: options.fetch } : {});
  const { data, error, response } = await client.GET(`/api/attest/${path}` as "/api/attest/l1-tip", {
    params: { query: params as never },
  });
  if (!data)
    throw new DogeosSdkError(
      "HTTP_ERROR",
      `GET /api/attest/${path} answered ${response.status} ${errorOf(error).code ?? ""}`,
      {
        status: response.status,
        error,
      },
    );
  const answer = data as unknown as AttestedFactAnswer;
  return { ...verifyAttestedFact(answer, trusted), answer };
}

/** The fee DogeAttestation asks for a fact of `query`'s type (0: not requestable). */
export async function requestFee(attestation: Contract, query: FactQuery): Promise<bigint> {
  return BigInt(await attestation.getFunction("requestFee")(factKeys(query).factType));
}

export interface OpenedRequest {
  requestId: string;
  feeWei: bigint;
  receipt: ContractTransactionReceipt;
}

/**
 * requestFact for `query`, paying exactly the fee, from the attestation contract's signer; the
 * request id is read from its FactRequested event. FACT_NOT_REQUESTABLE when the fee is 0.
 */
export async function openFactRequest(attestation: Contract, query: FactQuery, plugId = 0n): Promise<OpenedRequest> {
  const keys = factKeys(query);
  const feeWei = await requestFee(attestation, query);
  if (feeWei === 0n)
    throw new DogeosSdkError(
      "FACT_NOT_REQUESTABLE",
      `${query.type} facts cannot be requested on this contract (fee 0)`,
      {
        query,
      },
    );
  const tx = await attestation.getFunction("requestFact")(keys.factType, keys.subject, keys.qualifier, plugId, {
    value: feeWei,
  });
  const receipt = (await tx.wait()) as ContractTransactionReceipt;
  for (const log of receipt.logs) {
    const parsed = attestation.interface.parseLog(log);
    if (parsed?.name === "FactRequested") return { requestId: String(parsed.args.requestId), feeWei, receipt };
  }
  throw new DogeosSdkError("REQUEST_NOT_FOUND", "requestFact's receipt has no FactRequested event", {
    hash: receipt.hash,
  });
}

/** Asks the attest API at `origin` to fulfil `requestId` with the inputs of `query` (POST /api/attest/fulfill). */
export async function askFulfilment(
  origin: string,
  requestId: string,
  query: FactQuery,
  options: { fetch?: typeof fetch } = {},
): Promise<{ requestId: string; status: "fulfilled"; txHash?: string }> {
  const { params } = attestApiQuery(query);
  const client = attestClient(origin, options.fetch ? { fetch: options.fetch } : {});
  const { data, error, response } = await client.POST("/api/attest/fulfill", { body: { requestId, ...params } });
  if (!data)
    throw new DogeosSdkError(
      "HTTP_ERROR",
      `POST /api/attest/fulfill answered ${response.status} ${errorOf(error).code ?? ""}: ${errorOf(error).message ?? ""}`,
      { status: response.status, error },
    );
  return data;
}

/**
 * Waits until `requestId` is fulfilled on chain (polling requestOf every `pollMs`), at most
 * `timeoutMs`; REQUEST_REFUNDED, REQUEST_NOT_FOUND or REQUEST_TIMEOUT otherwise.
 */
export async function waitFulfilled(
  attestation: Contract,
  requestId: string,
  options: { timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const request = await attestation.getFunction("requestOf")(requestId);
    const status = Number(request.status);
    if (status === REQUEST_STATUS.Fulfilled) return;
    if (status === REQUEST_STATUS.Refunded)
      throw new DogeosSdkError("REQUEST_REFUNDED", `request ${requestId} was refunded`, { requestId });
    if (status === REQUEST_STATUS.None)
      throw new DogeosSdkError("REQUEST_NOT_FOUND", `no request ${requestId} on this contract`, { requestId });
    if (Date.now() >= deadline)
      throw new DogeosSdkError("REQUEST_TIMEOUT", `request ${requestId} is still open`, { requestId });
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
}

export interface FreshFact {
  requestId: string;
  feeWei: bigint;
  /** The fulfill transaction, when the attest API names it. */
  fulfilTx: string | null;
  fact: StoredFact;
}

/**
 * A paid fresh fact end to end: requestFee, requestFact (from the contract's signer), POST
 * /api/attest/fulfill at `attestOrigin`, wait for the fulfilment on chain, and the stored fact.
 */
export async function requestFreshFact(
  attestation: Contract,
  attestOrigin: string,
  query: FactQuery,
  options: { plugId?: bigint; timeoutMs?: number; pollMs?: number; fetch?: typeof fetch } = {},
): Promise<FreshFact> {
  const { requestId, feeWei } = await openFactRequest(attestation, query, options.plugId ?? 0n);
  const answer = await askFulfilment(attestOrigin, requestId, query, { fetch: options.fetch });
  await waitFulfilled(attestation, requestId, options);
  return { requestId, feeWei, fulfilTx: answer.txHash ?? null, fact: await readFact(attestation, query) };
}
