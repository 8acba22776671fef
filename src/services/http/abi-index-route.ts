/**
 * The ABI index where the seed publishes it (issue 30): `GET /shared/abi/index.json` and the ABI
 * files beside it (`GET /shared/abi/DogeAttestation.json`, ...), on every HTTP daemon of the stack,
 * readable from pages of any origin (`Access-Control-Allow-Origin: *`, no credentials). Dapp teams
 * and @dogeos/sdk read the addresses, deploy blocks and deploy transactions from it.
 *
 * What is served is what the ABI index records (src/l2/abi-index.ts), read at each request so that
 * a deployment made while the daemon runs is seen: the committed index of the real chains
 * (shared/abi/index.json, DogeOS 6281971 `deployed: false` until a real deployment) merged with the
 * local chain's index (31337, `<data dir>/abi/index.json`, written by `npm start`'s deploy step).
 * A chain is taken from the file abiIndexFile names for it; `deployed` and every field are as
 * recorded. An ABI file is served only when the merged index names it, from the directory of the
 * index that names it (nothing else on disk is reachable).
 *
 * Mount with one line after `surface.serve(app)`: `serveAbiIndex(app, surface)`.
 */
import fs from "node:fs";
import path from "node:path";
import type express from "express";
import { LOCAL_CHAIN_ID, abiIndexFile, type AbiIndex, type AbiIndexLocation } from "../../l2/abi-index";
import { AppError, notFound } from "./errors";
import { type ApiSurface, z } from "./openapi";

/** DogeOS testnet (DESIGN.md section 1): its index is the committed one (deploy/contracts.ts). */
const DOGEOS_TESTNET_CHAIN_ID = 6281971;

/** The URL path of the index; the ABI files are beside it. */
export const ABI_INDEX_PATH = "/shared/abi/index.json";

const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const AbiIndexContractBody = z
  .object({
    address: Address.nullable().openapi({ description: "checksummed; null when this chain's deployment lacks it" }),
    abi: z.string().openapi({ description: "the ABI file's name, beside index.json", example: "DogeAttestation.json" }),
    deployBlock: z.int().min(0).optional().openapi({ description: "the block that holds the contract's creation" }),
    deployTx: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .optional()
      .openapi({ description: "the transaction that created it" }),
  })
  .openapi("AbiIndexContract");

export const AbiIndexBody = z
  .record(
    z.string().regex(/^[0-9]+$/),
    z.object({
      deployed: z
        .boolean()
        .openapi({ description: "whether a deployment of the contract set was recorded on this chain" }),
      contracts: z.record(z.string(), AbiIndexContractBody),
    }),
  )
  .openapi("AbiIndex", {
    description:
      "the published contract set per L2 chain id (src/l2/abi-index.ts): each contract's ABI file, address, deploy block and deploy transaction",
  });

export const AbiFileBody = z
  .array(z.record(z.string(), z.unknown()))
  .openapi("AbiFile", { description: "a contract's ABI (Solidity's JSON ABI array)" });

export interface AbiIndexSource {
  /** The index files merged, in order (default: the real chains' index, then the local chain's). */
  files?: string[];
  /** Where abiIndexFile looks (ABI_INDEX, DOGEOS_DATA_DIR). */
  location?: AbiIndexLocation;
}

/** The index files the daemons serve, each once. */
export function servedIndexFiles(source: AbiIndexSource = {}): string[] {
  const files = source.files ?? [
    abiIndexFile(DOGEOS_TESTNET_CHAIN_ID, source.location),
    abiIndexFile(LOCAL_CHAIN_ID, source.location),
  ];
  return [...new Set(files.map((file) => path.resolve(file)))];
}

export interface ServedAbiIndex {
  index: AbiIndex;
  /** ABI file name -> the file on disk, for every name the index gives. */
  abiFiles: Map<string, string>;
}

const ABI_FILE_NAME = /^[A-Za-z0-9_-]+\.json$/;

async function readIndex(file: string): Promise<AbiIndex | null> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    return JSON.parse(text) as AbiIndex;
  } catch (error) {
    throw new AppError("unavailable", "ABI_INDEX_UNREADABLE", "the ABI index on this host is not valid JSON", {
      reason: (error as Error).message,
    });
  }
}

/** The merged index as recorded now, and where each ABI file it names is. */
export async function readServedAbiIndex(source: AbiIndexSource = {}): Promise<ServedAbiIndex> {
  const index: AbiIndex = {};
  const owner = new Map<string, string>();
  const abiFiles = new Map<string, string>();
  for (const file of servedIndexFiles(source)) {
    const recorded = await readIndex(file);
    if (!recorded) continue;
    for (const [chainId, entry] of Object.entries(recorded)) {
      // The file abiIndexFile names for a chain is where its deployment is recorded; another file's
      // entry for it counts only until that one is read.
      const home = path.resolve(abiIndexFile(Number(chainId), source.location));
      if (index[chainId] && file !== home) continue;
      index[chainId] = entry;
      owner.set(chainId, file);
    }
  }
  for (const [chainId, entry] of Object.entries(index)) {
    const directory = path.dirname(owner.get(chainId)!);
    for (const contract of Object.values(entry.contracts ?? {})) {
      if (typeof contract.abi !== "string" || !ABI_FILE_NAME.test(contract.abi) || abiFiles.has(contract.abi)) continue;
      const file = path.join(directory, contract.abi);
      if (fs.existsSync(file)) abiFiles.set(contract.abi, file);
    }
  }
  return { index, abiFiles };
}

const allowAnyOrigin = (res: express.Response) => {
  res.setHeader("Access-Control-Allow-Origin", "*");
  // Read again after a deployment: a cached copy must be revalidated.
  res.setHeader("Cache-Control", "no-cache");
};

/** GET /shared/abi/index.json and GET /shared/abi/{file} on `app`, declared in `surface`. */
export function serveAbiIndex(app: express.Express, surface: ApiSurface, source: AbiIndexSource = {}): void {
  const routes = surface.on(app);
  routes.get(
    ABI_INDEX_PATH,
    {
      summary: "The ABI index: the published contracts per L2 chain, with addresses, deploy blocks and transactions",
      description:
        "Readable from any origin (Access-Control-Allow-Origin: *). The `deployed` flag and every field are as the deployment recorded them; " +
        "the ABI files are beside it (GET /shared/abi/{file}). 503 ABI_INDEX_UNREADABLE when the file on this host is not JSON.",
      tags: ["contracts"],
      responses: { 200: AbiIndexBody },
    },
    async (_input, _req, res) => {
      const { index } = await readServedAbiIndex(source);
      allowAnyOrigin(res);
      res.json(index);
    },
  );
  routes.get(
    "/shared/abi/:file",
    {
      summary: "A contract's ABI file, as the ABI index names it",
      description: "Readable from any origin. 404 ABI_FILE_NOT_FOUND for a name the index does not give.",
      tags: ["contracts"],
      params: z.object({
        file: z.string().openapi({ description: "an ABI file named by the index", example: "DogeAttestation.json" }),
      }),
      responses: { 200: AbiFileBody },
    },
    async ({ params }, _req, res) => {
      const { abiFiles } = await readServedAbiIndex(source);
      const file = abiFiles.get(params.file);
      if (!file)
        throw notFound("ABI_FILE_NOT_FOUND", `${params.file} is not an ABI file of the ABI index`, {
          file: params.file,
          files: [...abiFiles.keys()],
        });
      const text = await fs.promises.readFile(file, "utf8");
      allowAnyOrigin(res);
      res.type("json").send(text);
    },
  );
}
