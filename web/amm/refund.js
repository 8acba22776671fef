// The swap page's refund panel: a payment to the custody that serves no order (paid without one,
// or after its order had ended) asked back by its payer. The wallet signs refund-deposit (the exact
// text from GET /api/auth/message) for the connected address; POST /api/deposits/refund queues the
// payout, which the panel follows until it is confirmed on chain. The service decides: the deposit
// must be the address's own payment to the custody, deep enough and not used by any order
// (docs/api.md "POST /deposits/refund").
import { api, describeError, payoutText, say, signOrder, sleep } from "/amm.js";

const TXID = /^[0-9a-f]{64}$/;
/** Payout states after which nothing changes by waiting. */
const SETTLED = ["confirmed", "failed", "frozen", "below_dust"];

/**
 * Wires the panel (ids `refund-*`). `account()` answers the connected account or null; `connect()`
 * connects the wallet and answers the account (the page's own, so its other forms see it too).
 */
export function mountRefund({ account, connect }) {
  const $ = (id) => document.getElementById(id);
  const message = $("refund-message");
  const showTick = () => {
    $("refund-tick-row").hidden = $("refund-asset").value !== "DRC20";
  };
  $("refund-asset").addEventListener("change", showTick);
  showTick();

  /** The request's fields from the form but the address, or throws with what to correct. */
  const fields = () => {
    const depositTxid = $("refund-txid").value.trim().toLowerCase();
    if (!TXID.test(depositTxid))
      throw new Error("the transaction id is 64 hexadecimal characters: copy it from your wallet's activity");
    const asset = $("refund-asset").value;
    if (asset !== "DRC20") return { asset: "DOGE", depositTxid };
    const tick = $("refund-tick").value.trim();
    if (!tick) throw new Error("name the token you sent (its tick)");
    return { asset, tick, depositTxid };
  };

  let busy = false;
  $("refund-ask").addEventListener("click", async () => {
    if (busy) return;
    busy = true;
    $("refund-ask").disabled = true;
    try {
      const asked = fields();
      const { address } = account() ?? (await connect());
      const request = { ...asked, address };
      say(message, "info", "Sign the request in your wallet…");
      const signature = await signOrder("refund-deposit", request);
      say(message, "info", "Asking for the payment back…");
      let { body: payout } = await api("POST", "/deposits/refund", { body: { ...request, signature } });
      for (;;) {
        say(
          message,
          payout.status === "confirmed" ? "ok" : SETTLED.includes(payout.status) ? "error" : "info",
          `Refund to ${address}: ${payoutText(payout)}.`,
        );
        if (SETTLED.includes(payout.status)) break;
        await sleep(1500);
        payout = (await api("GET", `/payouts/${payout.id}`)).body;
      }
    } catch (error) {
      say(message, "error", describeError(error));
    } finally {
      busy = false;
      $("refund-ask").disabled = false;
    }
  });
}
