// The swap page: the pools with their reserves, a price chart from the pool's swap history, and a
// swap either way: a live quote (re-asked as the direction, amount or slippage changes, and every
// 15 s), a price-impact warning, the order (POST /swap/create), the deposit — DOGE paid with a PSBT
// the page builds and the wallet signs, or the tokens sent through the wallet's own DRC-20 transfer
// (./drc20-deposit.js) — the signed execute (execute-swap) naming the deposit's txid, then the
// order's status until it is settled or refunded. `?tick=` (the bonding page's link to a graduated
// curve's pool) picks the pool, and the address follows the pool the person picks. Below it, the
// refund panel (./refund.js) asks back a payment to the custody that served no order.
import {
  api,
  connectWallet,
  describeError,
  formatDoge,
  formatNumber,
  formatTokens,
  lineChart,
  markNavigation,
  parseDoge,
  payDoge,
  payoutText,
  say,
  signOrder,
  sleep,
  tableRow,
  TradeQuote,
  wallet,
} from "/amm.js";
import { parseTokens, sendTokenDeposit, tokenBalance } from "/drc20-deposit.js";
import { mountRefund } from "/refund.js";

const $ = (id) => document.getElementById(id);
const state = {
  pools: [],
  /** The pool shown: the one `?tick=` names, if it has a pool, else the first. */
  tick: new URLSearchParams(location.search).get("tick"),
  direction: "DOGE_TO_TOKEN",
  slippageBps: 50,
  quote: null,
  account: null,
  busy: false,
};
/** The quote shown: the newest asked; cleared by a settled swap until the person types or picks again. */
const quotes = new TradeQuote({ clear: clearQuote, message: $("quote-message"), trade: "Swap" });
const selling = () => state.direction === "TOKEN_TO_DOGE";
/** A price impact above this is called out before the person swaps. */
const IMPACT_WARNING_BPS = 300;
const FINAL = ["settled", "refunded", "expired", "failed"];
/** How often the quote is re-asked while the person waits. */
const REQUOTE_MS = 15_000;

const sameTick = (a, b) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

/** Keeps `?tick=` on the pool shown, so that the address can be shared and reloads to the same pool. */
function keepTickInUrl() {
  const params = new URLSearchParams(location.search);
  if (state.tick === null || params.get("tick") === state.tick) return;
  params.set("tick", state.tick);
  history.replaceState(null, "", `${location.pathname}?${params}${location.hash}`);
}

markNavigation();

function refreshButtons() {
  $("swap").disabled = state.busy || !state.quote || !state.account;
  $("connect").textContent = state.account ? "Change wallet" : "Connect wallet";
}

async function loadPools() {
  const { body } = await api("GET", "/pools");
  state.pools = body.pools;
  const tbody = $("pools").querySelector("tbody");
  tbody.replaceChildren();
  $("pool").replaceChildren();
  if (state.pools.length === 0) {
    say(
      $("pools-status"),
      "info",
      state.tick
        ? `There is no ${state.tick}/DOGE pool yet, nor any other: add liquidity on the liquidity page to open the first one.`
        : "No pool has liquidity yet. Add some on the liquidity page to open the first one.",
    );
    return;
  }
  const wanted = state.tick;
  const named = wanted === null ? null : state.pools.find((p) => sameTick(p.tick, wanted));
  say(
    $("pools-status"),
    wanted !== null && !named ? "info" : "",
    wanted !== null && !named ? `There is no ${wanted}/DOGE pool; showing ${state.pools[0].tick}/DOGE.` : "",
  );
  state.tick = named ? named.tick : state.pools[0].tick;
  $("pools").hidden = false;
  $("pools-caption").hidden = false;
  for (const pool of state.pools) {
    const row = tableRow($("pools"), [
      `${pool.tick}/DOGE`,
      formatDoge(pool.dogeReserve),
      formatTokens(pool.tokenReserve),
      pool.priceKoinuPerToken === null ? "–" : formatDoge(BigInt(Math.round(Number(pool.priceKoinuPerToken)))),
    ]);
    row.dataset.tick = pool.tick;
    tbody.append(row);
    const option = document.createElement("option");
    option.value = pool.tick;
    option.textContent = `${pool.tick}/DOGE`;
    $("pool").append(option);
  }
  $("pool").value = state.tick;
  keepTickInUrl();
}

/** How many of the pool's latest swaps the chart draws (the route's largest page). */
const CHART_SWAPS = 200;

/**
 * The chart: the pool's price after each of its latest executed swaps (GET /pools/:tick/DOGE/swaps,
 * every trader's, koinu per token), oldest to newest, and the spot price now.
 */
async function drawChart() {
  const tick = state.tick;
  $("chart-tick").textContent = tick ?? "–";
  const pool = state.pools.find((p) => p.tick === tick);
  const spot = pool?.priceKoinuPerToken ? Number(pool.priceKoinuPerToken) : null;
  let swaps = [];
  let failed = false;
  if (tick) {
    try {
      const { body } = await api(
        "GET",
        `/pools/${encodeURIComponent(tick)}/DOGE/swaps?order=desc&limit=${CHART_SWAPS}`,
      );
      swaps = body.swaps;
    } catch {
      failed = true;
    }
  }
  if (tick !== state.tick) return;
  const points = swaps
    .slice()
    .reverse()
    .filter((s) => s.spotAfterKoinuPerToken !== null)
    .map((s) => ({ x: s.at, y: Number(s.spotAfterKoinuPerToken) }));
  const now = Math.floor(Date.now() / 1000);
  const mine = state.account ? swaps.filter((s) => s.address === state.account.address).length : 0;
  lineChart($("chart"), {
    points: points.length > 0 && spot !== null ? [...points, { x: now, y: spot }] : points,
    title: `Price of ${tick} in koinu per token after each of the pool's last ${points.length} swaps${spot !== null ? `, and the spot price ${formatNumber(spot)}` : ""}`,
    emptyText: failed
      ? "The pool's swaps could not be loaded; the chart tries again after your next swap"
      : "No swap in this pool yet",
    mark: spot !== null && points.length > 0 ? { x: now, y: spot } : undefined,
    yLabel: "koinu per token",
  });
  $("chart").dataset.swaps = String(points.length);
  const yours = state.account ? ` ${mine === 1 ? "One of them is" : `${mine} of them are`} yours.` : "";
  $("chart-note").textContent =
    spot === null
      ? "This pool is empty."
      : `Spot price now: ${formatNumber(spot)} koinu per ${tick} (${formatDoge(BigInt(Math.round(spot)))} DOGE). ${points.length} ${points.length === 1 ? "swap" : "swaps"} charted.${yours}`;
}

function clearQuote() {
  state.quote = null;
  for (const id of ["q-out", "q-min", "q-fee", "q-impact", "q-deposit"]) $(id).textContent = "–";
  $("impact-warning").textContent = "";
}

/** The person typed or picked something: the quote is theirs to ask again. */
function askedAgain() {
  quotes.askedAgain();
  void requote();
}

/** What the person types the amount in, and what the page says of the tokens they hold when selling. */
async function showDirection() {
  const tick = state.tick ?? "tokens";
  $("amount-label").textContent = selling() ? `You sell (${tick}, whole tokens)` : "You pay (DOGE)";
  $("amount").inputMode = selling() ? "numeric" : "decimal";
  $("holding").textContent = "";
  if (!selling() || !state.account || !state.tick) return;
  const held = await tokenBalance(state.account.address, state.tick);
  if (held && selling() && tick === state.tick)
    $("holding").textContent = `You hold ${formatTokens(held.available)} ${tick} to sell${
      held.transferable !== "0" ? ` (and ${formatTokens(held.transferable)} in transfers not sent yet)` : ""
    }.`;
}

/** Asks for a quote of the amount typed; a newer request wins over an older answer. */
async function requote() {
  const asked = quotes.ask();
  const amountIn = selling() ? parseTokens($("amount").value) : parseDoge($("amount").value);
  if (!state.tick) return;
  if (amountIn === null || amountIn === "0") {
    clearQuote();
    say(
      $("quote-message"),
      "error",
      selling()
        ? `Type a whole number of ${state.tick} to sell, such as 1000.`
        : "Type an amount of DOGE, such as 10 or 2.5.",
    );
    refreshButtons();
    return;
  }
  try {
    const query = new URLSearchParams({
      tick: state.tick,
      direction: state.direction,
      amountIn,
      slippageBps: String(state.slippageBps),
    });
    const { body: quote } = await api("GET", `/swap/quote?${query}`);
    if (!quotes.isNewest(asked)) return;
    state.quote = quote;
    const slippage = `(slippage ${quote.slippageBps / 100}%)`;
    if (quote.direction === "TOKEN_TO_DOGE") {
      $("q-out").textContent = `${formatDoge(quote.payoutAmount)} DOGE`;
      $("q-min").textContent = `${formatDoge(quote.minAmountOut)} DOGE ${slippage}`;
      $("q-fee").textContent =
        `${formatDoge(quote.fee)} DOGE, and ${formatDoge(quote.payoutCost)} DOGE for the payout (taken from what you get)`;
      $("q-deposit").textContent =
        `${formatTokens(quote.depositAmount)} ${quote.tick}, a DRC-20 transfer your wallet sends`;
    } else {
      $("q-out").textContent = `${formatTokens(quote.amountOut)} ${quote.tick}`;
      $("q-min").textContent = `${formatTokens(quote.minAmountOut)} ${quote.tick} ${slippage}`;
      $("q-fee").textContent =
        `${formatDoge(quote.fee)} DOGE, plus ${formatDoge(quote.payoutCost)} DOGE for the payout`;
      $("q-deposit").textContent = `${formatDoge(quote.depositAmount)} DOGE`;
    }
    $("q-impact").textContent = `${(quote.priceImpactBps / 100).toFixed(2)}%`;
    $("impact-warning").textContent =
      quote.priceImpactBps > IMPACT_WARNING_BPS
        ? `Price impact ${(quote.priceImpactBps / 100).toFixed(2)}%: this swap moves the price a lot. A smaller amount gets a better rate.`
        : "";
    say($("quote-message"), "", "");
  } catch (error) {
    if (!quotes.isNewest(asked)) return;
    clearQuote();
    say($("quote-message"), "error", describeError(error));
  }
  refreshButtons();
}

const isSettled = (swap) =>
  swap.status === "settled" || (swap.status === "executed" && swap.payout?.status === "confirmed");

/** Shows the order's status until it is final; answers the order as it ended. */
async function followOrder(swap) {
  $("order").hidden = false;
  $("o-id").textContent = swap.swapId;
  for (;;) {
    $("o-status").textContent = swap.status;
    $("o-deposit").textContent = swap.depositTxid ?? "–";
    $("o-payout").textContent = payoutText(swap.payout ?? swap.refund) || "–";
    if (isSettled(swap)) {
      quotes.settled();
      refreshButtons();
      const paid =
        swap.direction === "TOKEN_TO_DOGE"
          ? `${formatDoge(swap.payout?.amount ?? swap.amountOut)} DOGE`
          : `${formatTokens(swap.amountOut)} ${swap.tick}`;
      say($("swap-message"), "ok", `Swapped: ${paid} paid to ${swap.address}.`);
      return swap;
    }
    if (FINAL.includes(swap.status)) {
      const reason = swap.error ? `${swap.error.message} (${swap.error.code})` : "";
      say(
        $("swap-message"),
        "error",
        swap.status === "refunded"
          ? `Refunded: ${reason}. ${payoutText(swap.refund)}`
          : `The order is ${swap.status}${reason ? `: ${reason}` : ""}.`,
      );
      return swap;
    }
    say($("swap-message"), "info", `Order ${swap.status.replace("_", " ")}: waiting for the chain…`);
    await sleep(1500);
    swap = (await api("GET", `/swap/status/${swap.swapId}`)).body;
  }
}

async function swap() {
  const quote = state.quote;
  const address = state.account.address;
  // A wallet that cannot send tokens says so before an order is opened for nothing.
  if (quote.direction === "TOKEN_TO_DOGE") wallet().checkSendDrc20();
  say($("swap-message"), "info", "Placing the order…");
  const { body: order } = await api("POST", "/swap/create", { body: { quoteId: quote.quoteId, address } });
  $("order").hidden = false;
  $("o-id").textContent = order.swapId;
  $("o-status").textContent = order.status;
  const progress = (text) => say($("swap-message"), "info", text);
  const txid =
    order.direction === "TOKEN_TO_DOGE"
      ? await sendTokenDeposit({ tick: order.tick, amount: order.depositAmount, to: order.depositAddress, progress })
      : await payDoge(order.depositAddress, order.depositAmount, progress);
  $("o-deposit").textContent = txid;
  say($("swap-message"), "info", "Sign the order (your deposit and its terms) in your wallet…");
  const signature = await signOrder("execute-swap", { swapId: order.swapId, depositTxid: txid });
  const { body: executed } = await api("POST", "/swap/execute", {
    body: { swapId: order.swapId, depositTxid: txid, signature },
  });
  const ended = await followOrder(executed);
  await loadPools();
  await drawChart();
  return ended;
}

/** Connects the wallet for the whole page (the swap form and the refund panel); answers the account. */
async function useWallet() {
  state.account = await connectWallet($("wallet"));
  await Promise.all([drawChart(), showDirection()]);
  refreshButtons();
  return state.account;
}

$("connect").addEventListener("click", async () => {
  try {
    if (state.account) wallet().choose(null);
    await useWallet();
    say($("swap-message"), "", "");
  } catch (error) {
    say($("swap-message"), "error", describeError(error));
  }
  refreshButtons();
});

$("swap").addEventListener("click", async () => {
  state.busy = true;
  refreshButtons();
  try {
    await swap();
  } catch (error) {
    say($("swap-message"), "error", describeError(error));
  } finally {
    state.busy = false;
    // A swap that did not settle (refused, refunded) is quoted again for the person to retry.
    await Promise.all([quotes.afterSettlement ? refreshButtons() : requote(), showDirection()]);
  }
});

for (const button of document.querySelectorAll(".presets button[data-bps]")) {
  button.addEventListener("click", () => {
    state.slippageBps = Number(button.dataset.bps);
    for (const other of document.querySelectorAll(".presets button[data-bps]"))
      other.setAttribute("aria-pressed", String(other === button));
    askedAgain();
  });
}
for (const button of document.querySelectorAll(".presets button[data-direction]")) {
  button.addEventListener("click", () => {
    if (state.direction === button.dataset.direction) return;
    state.direction = button.dataset.direction;
    for (const other of document.querySelectorAll(".presets button[data-direction]"))
      other.setAttribute("aria-pressed", String(other === button));
    clearQuote();
    void showDirection();
    askedAgain();
  });
}
$("amount").addEventListener("input", () => askedAgain());
$("pool").addEventListener("change", () => {
  state.tick = $("pool").value;
  keepTickInUrl();
  void showDirection();
  askedAgain();
  void drawChart();
});

let requoting = null;

/** Loads the pools, then the chart and the quote; a load that fails says why and offers to try again. */
async function start() {
  $("retry-row").hidden = true;
  say($("pools-status"), "info", "Loading the pools…");
  try {
    await loadPools();
  } catch (error) {
    say($("pools-status"), "error", `Could not load the pools: ${describeError(error)}`);
    $("retry-row").hidden = false;
    return;
  }
  await Promise.all([drawChart(), showDirection()]);
  await requote();
  requoting ??= setInterval(() => {
    if (!state.busy && !quotes.afterSettlement) void requote();
  }, REQUOTE_MS);
}

mountRefund({ account: () => state.account, connect: useWallet });

$("retry").addEventListener("click", () => void start());
void start();
refreshButtons();
