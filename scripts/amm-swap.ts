/**
 * A user's side of an AMM swap from the command line (docs/operations.md "The AMM"): quotes, creates
 * the swap, pays exactly its deposit to the custody from the user's own key (so the user is the
 * deposit's payer: its first input), signs the execute-swap text with that key and executes.
 *
 *   node --import tsx scripts/amm-swap.ts --key-file <user wif file> --tick WOOF --amount-in 10000000000 \
 *        [--direction DOGE_TO_TOKEN] [--slippage-bps 100] [--amm http://127.0.0.1:3003/api] \
 *        [--index-db data/indexer/explorer.sqlite] [--rpc-url http://devnet:devnet@127.0.0.1:18332] [--network regtest]
 *
 * DOGE_TO_TOKEN only (a token deposit is a DRC-20 transfer inscription, which a Doginals wallet
 * sends). The user's coins are found through the explorer's index; the payment is kept in a wallet
 * database beside the key file (`<key file>.wallet.sqlite`) so that a rerun never pays twice.
 * Prints each answer as one JSON line `{http, body}`; the last is the swap (202 deposit_seen until
 * the deposit is deep enough, then the AMM executes it by itself).
 */
import { DogecoinRpcClient } from "../src/chain/dogecoin-rpc";
import { addressToOutputScript, getNetwork, signMessage } from "../src/doge";
import { openIndexReader } from "../src/indexer/database";
import { IndexQueries } from "../src/indexer/queries";
import { HotWallet, indexNodeChain, loadWalletKey, openWalletDatabase } from "../src/wallet";

function flag(name: string, fallback?: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at > 0 ? process.argv[at + 1] : fallback;
  if (value === undefined) {
    process.stderr.write(
      `missing --${name}\nusage: amm-swap.ts --key-file <wif file> --tick T --amount-in <koinu> [--slippage-bps N] [--amm URL] [--index-db FILE] [--rpc-url URL] [--network regtest]\n`,
    );
    process.exit(2);
  }
  return value;
}

async function call(url: string, method = "GET", body?: unknown): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json();
  process.stdout.write(`${JSON.stringify({ http: response.status, body: answer })}\n`);
  if (response.status >= 400) process.exit(1);
  return answer;
}

async function main(): Promise<void> {
  const network = getNetwork(flag("network", "regtest"));
  const keyFile = flag("key-file");
  const amm = flag("amm", "http://127.0.0.1:3003/api");
  const key = loadWalletKey({ keyFile, network });
  const queries = new IndexQueries(openIndexReader(flag("index-db", "data/indexer/explorer.sqlite")));
  const rpc = new DogecoinRpcClient({ url: flag("rpc-url", "http://devnet:devnet@127.0.0.1:18332") });
  const wallet = new HotWallet({
    db: openWalletDatabase(`${keyFile}.wallet.sqlite`),
    key,
    chain: indexNodeChain(queries, rpc),
    network,
  });
  const query = new URLSearchParams({
    tick: flag("tick"),
    direction: "DOGE_TO_TOKEN",
    amountIn: flag("amount-in"),
    slippageBps: flag("slippage-bps", "100"),
  });
  const quote = await call(`${amm}/swap/quote?${query}`);
  const swap = await call(`${amm}/swap/create`, "POST", { quoteId: quote.quoteId, address: key.address });
  await wallet.sync();
  const paid = wallet.fund("amm-swap", swap.swapId, [
    { script: addressToOutputScript(swap.depositAddress, network), value: BigInt(swap.depositAmount) },
  ]);
  await wallet.broadcast(paid.txid);
  const { message } = await call(
    `${amm}/auth/message?${new URLSearchParams({ action: "execute-swap", swapId: swap.swapId, depositTxid: paid.txid })}`,
  );
  await call(`${amm}/swap/execute`, "POST", {
    swapId: swap.swapId,
    depositTxid: paid.txid,
    signature: signMessage(message, key.privateKey),
  });
}

main().catch((error) => {
  process.stderr.write(`amm-swap: ${(error as Error).message}\n`);
  process.exit(1);
});
