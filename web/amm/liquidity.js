// The liquidity page: the connected address's positions and unclaimed fees, a fee claim and a removal
// (each a signed authorization: claim-fees, remove-liquidity), and an add: the DOGE deposit paid
// with a PSBT the wallet signs, the token deposit sent through the wallet's own DRC-20 transfer
// (./drc20-deposit.js; a txid typed in the advanced fields stays possible), and the signed
// add-liquidity order naming both txids. The custody address is the pools' deposit address.
import {
  api,
  authorization,
  connectWallet,
  describeError,
  formatDoge,
  formatTokens,
  markNavigation,
  parseDoge,
  payDoge,
  payoutText,
  say,
  signOrder,
  sleep,
  tableRow,
  wallet,
} from "/amm.js";
import { custodyAddress, parseTokens, sendTokenDeposit, tokenBalance } from "/drc20-deposit.js";

const $ = (id) => document.getElementById(id);
/** How often and how long an add waits for its deposits to be mined (10 minutes, a swap order's life). */
const ADD_RETRY_MS = 1500;
const ADD_RETRIES = 400;
const state = { account: null, positions: [], unclaimed: "0", custody: null };

markNavigation();

function refreshButtons() {
  const connected = state.account !== null;
  $("claim").disabled = !connected || state.unclaimed === "0";
  $("remove").disabled = !connected || state.positions.length === 0;
  $("pay-doge").disabled = !connected || !state.custody;
  $("send-tokens").disabled = !connected || !state.custody;
  $("add").disabled = !connected;
  $("connect").textContent = connected ? "Change wallet" : "Connect wallet";
}

async function load() {
  const address = state.account.address;
  const [{ body: positions }, { body: fees }] = await Promise.all([
    api("GET", `/liquidity/positions/${encodeURIComponent(address)}`),
    api("GET", `/liquidity/fees/${encodeURIComponent(address)}`),
  ]);
  state.positions = positions.positions;
  state.unclaimed = fees.unclaimed;
  const tbody = $("positions").querySelector("tbody");
  tbody.replaceChildren(
    ...state.positions.map((p) =>
      tableRow($("positions"), [
        `${p.tick}/DOGE`,
        formatTokens(p.shares),
        formatDoge(p.doge),
        formatTokens(p.token),
        `${formatDoge(p.unclaimedFees)} DOGE`,
      ]),
    ),
  );
  $("positions-empty").hidden = state.positions.length > 0;
  $("remove-pool").replaceChildren(
    ...state.positions.map((p) => {
      const option = document.createElement("option");
      option.value = p.tick;
      option.textContent = `${p.tick}/DOGE (${formatTokens(p.shares)} shares)`;
      return option;
    }),
  );
  $("fees").textContent = `${formatDoge(fees.unclaimed)} DOGE unclaimed; ${fees.claims.length} claim(s) made${
    fees.claims[0]?.payout ? ` (last: ${payoutText(fees.claims[0].payout)})` : ""
  }.`;
  say($("status"), "", "");
}

/** What the connected address holds of the token typed, to add. */
async function showHolding() {
  const tick = $("add-tick").value.trim();
  $("add-holding").textContent = "";
  if (!state.account || !tick) return;
  const held = await tokenBalance(state.account.address, tick);
  if (held && $("add-tick").value.trim() === tick)
    $("add-holding").textContent = `You hold ${formatTokens(held.available)} ${tick} you can deposit.`;
}

function action(buttonId, messageId, run) {
  $(buttonId).addEventListener("click", async () => {
    $(buttonId).disabled = true;
    try {
      await run();
      await load();
    } catch (error) {
      say($(messageId), "error", describeError(error));
    } finally {
      refreshButtons();
    }
  });
}

/**
 * Reads the connected address's positions and fees (and the custody address, once): a read that
 * fails says why and offers to try again.
 */
async function loadAccount() {
  $("retry-row").hidden = true;
  say($("status"), "info", "Loading your positions…");
  try {
    state.custody ??= await custodyAddress(state.account.address);
    await Promise.all([load(), showHolding()]);
  } catch (error) {
    say($("status"), "error", `Could not load your positions: ${describeError(error)}`);
    $("retry-row").hidden = false;
  }
  refreshButtons();
}

$("connect").addEventListener("click", async () => {
  try {
    if (state.account) wallet().choose(null);
    state.account = await connectWallet($("wallet"));
  } catch (error) {
    say($("status"), "error", describeError(error));
    refreshButtons();
    return;
  }
  await loadAccount();
});
$("retry").addEventListener("click", () => void loadAccount());

action("claim", "claim-message", async () => {
  const address = state.account.address;
  const auth = authorization();
  say($("claim-message"), "info", "Sign the claim in your wallet…");
  const signature = await signOrder("claim-fees", { address, nonce: auth.nonce, expiresAt: String(auth.expiresAt) });
  const { body } = await api("POST", "/liquidity/claim-fees", { body: { address, ...auth, signature } });
  say($("claim-message"), "ok", `Claimed: ${payoutText(body.payout)}`);
});

action("remove", "remove-message", async () => {
  const address = state.account.address;
  const tick = $("remove-pool").value;
  const shares = $("remove-shares").value.trim();
  if (!/^\d+$/.test(shares) || shares === "0") throw new Error("type a whole number of shares to remove");
  const auth = authorization();
  say($("remove-message"), "info", "Sign the removal in your wallet…");
  const signature = await signOrder("remove-liquidity", {
    address,
    tick,
    shares,
    nonce: auth.nonce,
    expiresAt: String(auth.expiresAt),
  });
  const { body } = await api("POST", "/liquidity/remove", { body: { tick, shares, address, ...auth, signature } });
  say(
    $("remove-message"),
    "ok",
    `Removed: ${formatDoge(body.doge)} DOGE, ${formatTokens(body.token)} ${tick} and ${formatDoge(body.fees)} DOGE of fees. ${body.payouts.map(payoutText).join("; ")}`,
  );
});

action("pay-doge", "add-message", async () => {
  const koinu = parseDoge($("add-doge").value);
  if (koinu === null || koinu === "0") throw new Error("type the DOGE to deposit, such as 100");
  const txid = await payDoge(state.custody, koinu, (text) => say($("add-message"), "info", text));
  $("add-doge-txid").value = txid;
  say($("add-message"), "ok", `DOGE deposit sent: ${txid}. Send the tokens, then add.`);
});

action("send-tokens", "add-message", async () => {
  const tick = $("add-tick").value.trim();
  const amount = parseTokens($("add-tokens").value);
  if (!tick) throw new Error("type the token's tick, such as WEBS");
  if (amount === null || amount === "0") throw new Error("type the tokens to deposit, a whole number such as 1000");
  const txid = await sendTokenDeposit({
    tick,
    amount,
    to: state.custody,
    progress: (text) => say($("add-message"), "info", text),
  });
  $("add-token-txid").value = txid;
  say(
    $("add-message"),
    "ok",
    `Token deposit sent: ${txid}. ${$("add-doge-txid").value.trim() ? "Now add liquidity." : "Pay the DOGE deposit, then add."}`,
  );
  void showHolding();
});

action("add", "add-message", async () => {
  const address = state.account.address;
  const tick = $("add-tick").value.trim();
  const dogeTxid = $("add-doge-txid").value.trim();
  const tokenTxid = $("add-token-txid").value.trim();
  if (!dogeTxid || !tokenTxid)
    throw new Error("pay the DOGE deposit and send the tokens first (or type both transactions under Advanced)");
  say($("add-message"), "info", "Sign the order in your wallet…");
  const signature = await signOrder("add-liquidity", { tick, address, dogeTxid, tokenTxid });
  // Deposits count once mined deep enough: until then the AMM answers 409 and the page asks again.
  let body;
  for (let asked = 0; ; asked++) {
    try {
      ({ body } = await api("POST", "/liquidity/add", { body: { tick, address, dogeTxid, tokenTxid, signature } }));
      break;
    } catch (error) {
      const waiting = error.code === "DEPOSIT_NOT_FOUND" || error.code === "DEPOSIT_NOT_DEEP_ENOUGH";
      if (!waiting || asked >= ADD_RETRIES) throw error;
      say($("add-message"), "info", `Waiting for the deposits to be mined: ${error.message}…`);
      await sleep(ADD_RETRY_MS);
    }
  }
  say(
    $("add-message"),
    "ok",
    `Added: ${formatTokens(body.shares)} shares for ${formatDoge(body.doge)} DOGE and ${formatTokens(body.token)} ${tick}.`,
  );
  void showHolding();
});

$("add-tick").addEventListener("change", () => void showHolding());

refreshButtons();
