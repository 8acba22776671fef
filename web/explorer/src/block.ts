/**
 * The block page (/block/<hash or height>), over the Esplora block routes (/esplora/api/block...).
 * When this explorer serves none, the page says so.
 */
import {
  ApiError,
  api,
  count,
  facts,
  h,
  isMissingRoute,
  link,
  mono,
  pathParam,
  paths,
  renderMain,
  section,
  setTitle,
  startPage,
  table,
  time,
  empty,
} from "./lib";

const id = pathParam("/block/");
const TXIDS_SHOWN = 100;

async function render() {
  let hash: string;
  try {
    if (/^[0-9]{1,9}$/.test(id)) hash = (await api<string>(`/esplora/api/block-height/${id}`)).trim();
    else if (/^[0-9a-f]{64}$/.test(id)) hash = id;
    else throw new ApiError(400, "INVALID_BLOCK", `${JSON.stringify(id.slice(0, 80))} is not a block height or hash`);
    const [block, txids, status] = await Promise.all([
      api(`/esplora/api/block/${hash}`),
      api<string[]>(`/esplora/api/block/${hash}/txids`),
      api(`/esplora/api/block/${hash}/status`).catch(() => null),
    ]);
    setTitle(`Block #${block.height}`);
    return [
      h("h1", null, `Block #${block.height}`),
      h("p", { className: "subject" }, mono(block.id)),
      h(
        "nav",
        { className: "pager", "aria-label": "Neighbouring blocks" },
        block.previousblockhash ? link(paths.block(block.previousblockhash), "← Previous block", "") : null,
        status?.next_best ? link(paths.block(status.next_best), "Next block →", "") : null,
      ),
      facts([
        ["Time", time(block.timestamp)],
        ["Median time past", time(block.mediantime)],
        ["Transactions", String(block.tx_count)],
        ["Size", count(block.size, "byte")],
        ["In the best chain", status ? (status.in_best_chain ? "yes" : "no (orphaned)") : null],
        ["Merkle root", mono(block.merkle_root)],
        ["Version", String(block.version)],
        ["Bits", block.bits.toString(16)],
        ["Nonce", String(block.nonce)],
        ["Difficulty", String(block.difficulty)],
      ]),
      section(
        "Transactions",
        txids.length
          ? table(
              txids.length > TXIDS_SHOWN
                ? `The first ${TXIDS_SHOWN} of ${count(txids.length, "transaction")}`
                : count(txids.length, "transaction"),
              ["#", "Transaction"],
              txids.slice(0, TXIDS_SHOWN).map((txid, i) => [String(i), link(paths.tx(txid), txid)]),
            )
          : empty("No transactions."),
      ),
    ];
  } catch (error) {
    if (isMissingRoute(error))
      throw new ApiError(
        501,
        "BLOCKS_NOT_AVAILABLE",
        "block pages are not available on this explorer: it serves no Esplora block routes",
      );
    if (error instanceof ApiError && error.status === 404)
      throw new ApiError(404, "BLOCK_NOT_FOUND", `no block ${id} in this explorer's chain`);
    throw error;
  }
}

startPage();
void renderMain("the block", render);
