// The bonding page: the active curves with their price and progress toward graduation (the curve's
// price against the DOGE raised, drawn from its reserves, with where it stands now), and a buy: a
// live quote, the reservation (signed bonding-reserve) with its countdown, the deposit paid with a
// PSBT the wallet signs, the signed confirm (bonding-confirm), then the reservation until its tokens
// are paid (or it is refunded), and graduation when this buy completes the curve.
import {
  api,
  authorization,
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
  wallet,
} from "/amm.js";

const $ = (id) => document.getElementById(id);
const state = { curves: [], symbol: null, quote: null, account: null, busy: false, seq: 0, countdown: null };

/** How much less than the quote a reservation may give (the curve moves with other buys). */
const RESERVE_SLIPPAGE_BPS = 100n;

markNavigation();

const curve = () => state.curves.find((c) => c.symbol === state.symbol) ?? null;

function refreshButtons() {
  $("buy").disabled = state.busy || !state.quote || !state.account;
  $("connect").textContent = state.account ? "Change wallet" : "Connect wallet";
}

/** Price (koinu per token) as the curve's DOGE reserve grows from its launch to graduation: Y^2 / (X * Y). */
function drawCurve(c) {
  const k = Number(c.virtualDoge) * Number(c.virtualToken);
  const start = Number(c.launchVirtualDoge);
  const raised = Number(c.realDoge);
  const goal = Number(c.graduationThreshold);
  const points = [];
  for (let i = 0; i <= 40; i++) {
    const y = start + (goal * i) / 40;
    points.push({ x: (goal * i) / 40 / 1e8, y: (y * y) / k });
  }
  const now = start + raised;
  lineChart($("chart"), {
    points,
    title: `${c.symbol}: price in koinu per token against the DOGE raised, ${formatDoge(c.realDoge)} of ${formatDoge(c.graduationThreshold)} DOGE raised`,
    emptyText: "",
    mark: { x: raised / 1e8, y: (now * now) / k },
    yLabel: "koinu per token, by DOGE raised",
  });
  $("chart-note").textContent =
    `The curve graduates into a ${c.symbol}/DOGE pool once ${formatDoge(c.graduationThreshold)} DOGE are raised.`;
}

function showCurve() {
  const c = curve();
  if (!c) return;
  $("curve-title").textContent = `${c.symbol} on its bonding curve`;
  $("c-price").textContent = `${formatNumber(Number(c.priceKoinuPerToken))} koinu per ${c.symbol}`;
  $("c-raised").textContent =
    `${formatDoge(c.realDoge)} of ${formatDoge(c.graduationThreshold)} DOGE (${(c.progressBps / 100).toFixed(2)}%)`;
  $("c-sold").textContent = `${formatTokens(c.tokensSold)} of ${formatTokens(c.sellableSupply)} ${c.symbol}`;
  $("c-status").textContent =
    c.status === "graduated"
      ? `graduated${c.graduation?.poolSeeded ? ": it trades in its pool on the swap page" : ": its pool is being seeded"}`
      : c.status;
  $("c-progress").value = c.progressBps;
  $("c-progress").setAttribute("aria-valuetext", `${(c.progressBps / 100).toFixed(2)}% of the graduation threshold`);
  drawCurve(c);
}

async function loadCurves() {
  const { body } = await api("GET", "/bonding/active");
  state.curves = body.curves;
  if (state.symbol && !state.curves.some((c) => c.symbol === state.symbol)) {
    // Graduated (or gone) since: keep showing it from its own record.
    state.curves.push((await api("GET", `/bonding/${encodeURIComponent(state.symbol)}`)).body);
  }
  if (state.curves.length === 0) {
    say(
      $("curves-status"),
      "info",
      "No curve is trading now. New launches appear here once their supply is deposited.",
    );
    return;
  }
  say($("curves-status"), "", "");
  $("curve-panel").hidden = false;
  $("buy-panel").hidden = false;
  $("curve").replaceChildren(
    ...state.curves.map((c) => {
      const option = document.createElement("option");
      option.value = c.symbol;
      option.textContent = c.symbol;
      return option;
    }),
  );
  state.symbol ??= state.curves[0].symbol;
  $("curve").value = state.symbol;
  showCurve();
}

async function requote() {
  const seq = ++state.seq;
  const amountIn = parseDoge($("amount").value);
  if (!state.symbol) return;
  if (amountIn === null || amountIn === "0") {
    state.quote = null;
    say($("quote-message"), "error", "Type an amount of DOGE, such as 10 or 2.5.");
    refreshButtons();
    return;
  }
  try {
    const { body: quote } = await api("POST", "/bonding/quote", {
      body: { symbol: state.symbol, side: "BUY", amountIn },
    });
    if (seq !== state.seq) return;
    state.quote = { ...quote, amountIn };
    $("q-out").textContent = `${formatTokens(quote.amountOut)} ${quote.symbol}`;
    $("q-fee").textContent = `${formatDoge(quote.fee)} DOGE, plus ${formatDoge(quote.payoutCost)} DOGE for the payout`;
    $("q-deposit").textContent =
      `${formatDoge(quote.depositAmount)} DOGE${quote.refund !== "0" ? ` (${formatDoge(quote.refund)} DOGE of it comes back: the curve sells out)` : ""}`;
    say($("quote-message"), "", "");
  } catch (error) {
    if (seq !== state.seq) return;
    state.quote = null;
    say($("quote-message"), "error", describeError(error));
  }
  refreshButtons();
}

function startCountdown(expiresAt) {
  clearInterval(state.countdown);
  const tick = () => {
    const left = expiresAt - Math.floor(Date.now() / 1000);
    $("o-countdown").textContent =
      left > 0
        ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`
        : "expired: a deposit mined before it still counts";
  };
  tick();
  state.countdown = setInterval(tick, 1000);
}

async function follow(reservation) {
  for (;;) {
    $("o-status").textContent = reservation.status;
    $("o-deposit").textContent = reservation.depositTxid ?? reservation.pendingTxid ?? "–";
    $("o-payout").textContent = payoutText(reservation.payout ?? reservation.refund) || "–";
    if (reservation.status === "confirmed" && reservation.payout?.status === "confirmed") {
      clearInterval(state.countdown);
      $("o-countdown").textContent = "done";
      say(
        $("buy-message"),
        "ok",
        `Bought: ${formatTokens(reservation.amountOut)} ${reservation.symbol} paid to ${reservation.address}.`,
      );
      return reservation;
    }
    if (reservation.status === "refunded" || (reservation.status === "expired" && !reservation.pendingTxid)) {
      clearInterval(state.countdown);
      const reason = reservation.error ? `${reservation.error.message} (${reservation.error.code})` : "";
      say(
        $("buy-message"),
        "error",
        `The reservation is ${reservation.status}${reason ? `: ${reason}` : ""}. ${payoutText(reservation.refund)}`,
      );
      return reservation;
    }
    say(
      $("buy-message"),
      "info",
      reservation.status === "confirmed"
        ? "Bought: your tokens are being paid out…"
        : "Waiting for your deposit to be mined…",
    );
    await sleep(1500);
    reservation = (await api("GET", `/bonding/reservations/${reservation.reservationId}`)).body;
  }
}

async function buy() {
  const quote = state.quote;
  const address = state.account.address;
  const auth = authorization();
  // The reservation is priced on the curve when it is made: it must give at least the quote less 1%.
  const minOut = (BigInt(quote.amountOut) * (10000n - RESERVE_SLIPPAGE_BPS)) / 10000n;
  const terms = {
    side: "BUY",
    address,
    amountIn: quote.amountIn,
    ...(minOut > 0n ? { minAmountOut: minOut.toString() } : {}),
  };
  say($("buy-message"), "info", "Sign the reservation in your wallet…");
  const signature = await signOrder("bonding-reserve", {
    symbol: state.symbol,
    ...terms,
    nonce: auth.nonce,
    expiresAt: String(auth.expiresAt),
  });
  const { body: reservation } = await api("POST", `/bonding/${encodeURIComponent(state.symbol)}/reserve`, {
    body: { ...terms, ...auth, signature },
  });
  $("order").hidden = false;
  $("o-id").textContent =
    `${reservation.reservationId}: ${formatTokens(reservation.reservedAmount)} ${reservation.symbol} held for you`;
  $("o-status").textContent = reservation.status;
  startCountdown(reservation.expiresAt);
  const txid = await payDoge(reservation.depositAddress, reservation.depositAmount, (text) =>
    say($("buy-message"), "info", text),
  );
  $("o-deposit").textContent = txid;
  say($("buy-message"), "info", "Sign the confirmation (your deposit for this reservation) in your wallet…");
  const confirmSignature = await signOrder("bonding-confirm", {
    reservationId: reservation.reservationId,
    depositTxid: txid,
  });
  const { body: confirmed } = await api("POST", "/bonding/confirm", {
    body: { reservationId: reservation.reservationId, depositTxid: txid, signature: confirmSignature },
  });
  if (confirmed.graduated)
    say($("quote-message"), "ok", `Your buy completed the curve: ${state.symbol} graduates into its pool.`);
  await follow(confirmed);
  await loadCurves();
}

$("connect").addEventListener("click", async () => {
  try {
    if (state.account) wallet().choose(null);
    state.account = await connectWallet($("wallet"));
    say($("buy-message"), "", "");
  } catch (error) {
    say($("buy-message"), "error", describeError(error));
  }
  refreshButtons();
});

$("buy").addEventListener("click", async () => {
  state.busy = true;
  refreshButtons();
  try {
    await buy();
  } catch (error) {
    say($("buy-message"), "error", describeError(error));
  } finally {
    state.busy = false;
    await requote();
  }
});
$("amount").addEventListener("input", () => void requote());
$("curve").addEventListener("change", () => {
  state.symbol = $("curve").value;
  showCurve();
  void requote();
});

loadCurves()
  .then(requote)
  .catch((error) => say($("curves-status"), "error", `Could not load the curves: ${describeError(error)}`));
refreshButtons();
