/** The transaction page (/tx/<txid>): status, fee and rate, inputs, outputs, OP_RETURN, inscriptions, OP_CHECKZKP. */
import {
  ApiError,
  api,
  confirmations,
  count,
  doge,
  empty,
  facts,
  h,
  link,
  mono,
  onTip,
  pathParam,
  paths,
  renderMain,
  section,
  setTitle,
  startPage,
  table,
  time,
} from "./lib";
import { opReturnTable, zkpTable } from "./records";

const txid = pathParam("/tx/");
let pending = true;

async function render() {
  if (!/^[0-9a-f]{64}$/.test(txid))
    throw new ApiError(
      400,
      "INVALID_TXID",
      `${JSON.stringify(txid.slice(0, 80))} is not a transaction id (64 hex digits)`,
    );
  const tx = await api(`/api/tx/${txid}`);
  pending = tx.block === null;
  setTitle(`Transaction ${txid.slice(0, 12)}…`);
  const inTotal = tx.inputs.reduce(
    (sum: bigint | null, i: any) => (sum === null || i.value_koinu === null ? null : sum + BigInt(i.value_koinu)),
    0n,
  );
  const outTotal = tx.outputs.reduce((sum: bigint, o: any) => sum + BigInt(o.value_koinu), 0n);
  const fee = tx.fee_koinu === null ? null : BigInt(tx.fee_koinu);
  const rate =
    fee === null || tx.size === 0
      ? null
      : `${doge((fee * 1000n) / BigInt(tx.size))} per kB (${(Number(fee) / tx.size).toFixed(2)} koinu per byte)`;

  const status = tx.block
    ? h(
        "p",
        { className: "status ok" },
        `Confirmed, ${confirmations(tx.confirmations)}, in block `,
        link(paths.block(tx.block.hash), `#${tx.block.height}`, ""),
        ` at ${time(tx.block.time)}.`,
      )
    : h(
        "p",
        { className: "status pending" },
        "Pending in the mempool: not in a block yet. This page updates when a block includes it.",
      );

  const inputs = tx.coinbase
    ? [["0", "coinbase (new coins and the block's fees)", "", doge(outTotal)]]
    : tx.inputs.map((i: any) => [
        String(i.vin),
        link(paths.tx(i.prev_txid), `${i.prev_txid}:${i.prev_vout}`),
        i.address ? link(paths.address(i.address), i.address) : "no address (non-standard script)",
        doge(i.value_koinu),
      ]);
  const outputs = tx.outputs.map((o: any) => [
    String(o.vout),
    o.address ? link(paths.address(o.address), o.address) : h("span", null, "script ", mono(o.script_hex.slice(0, 80))),
    doge(o.value_koinu),
    o.spent
      ? h(
          "span",
          null,
          o.spent.height === null ? "spending in the mempool by " : "spent by ",
          link(paths.tx(o.spent.txid), `${o.spent.txid.slice(0, 16)}…:${o.spent.vin}`),
        )
      : "unspent",
  ]);

  return [
    h("h1", null, "Transaction"),
    h("p", { className: "subject" }, mono(tx.txid)),
    status,
    facts([
      ["Confirmations", String(tx.confirmations)],
      ["Size", count(tx.size, "byte")],
      ["Fee", fee === null ? (tx.coinbase ? "none (coinbase)" : "unknown") : doge(fee)],
      ["Fee rate", rate],
      ["Total in", inTotal === null ? "unknown" : doge(inTotal)],
      ["Total out", doge(outTotal)],
      ["Position in block", tx.block ? String(tx.block.position) : null],
    ]),
    section(
      "Inputs",
      table(`${count(tx.inputs.length || 1, "input")}`, ["#", "Previous output", "Address", "Value"], inputs),
    ),
    section(
      "Outputs",
      outputs.length
        ? table(count(outputs.length, "output"), ["#", "Address", "Value", "Spent"], outputs)
        : empty("No outputs that pay an address or script (only OP_RETURN)."),
    ),
    section(
      "OP_RETURN",
      tx.op_returns.length
        ? opReturnTable(tx.op_returns, { showTx: false })
        : empty(pending ? "OP_RETURN outputs are decoded once the transaction is in a block." : "No OP_RETURN output."),
    ),
    section(
      "Inscriptions",
      tx.inscriptions.length
        ? table(
            count(tx.inscriptions.length, "inscription"),
            ["Inscription", "Content type", "Action", "Form"],
            tx.inscriptions.map((i: any) => [
              link(paths.inscription(i.id), `#${i.number} ${i.id}`),
              i.content_type ?? "none",
              i.action ?? "none",
              i.form,
            ]),
          )
        : empty(
            pending
              ? "Inscriptions are read once the transaction is in a block."
              : "This transaction reveals no inscription.",
          ),
    ),
    tx.zkp.length ? section("OP_CHECKZKP", zkpTable(tx.zkp, { showTx: false })) : null,
  ];
}

startPage();
void renderMain("the transaction", render);
// Confirmations move with the tip; a pending transaction is looked at again when a block is indexed.
onTip((_status, changed) => {
  if (changed) void renderMain("the transaction", render);
});
