// The bonding page: the active curves, the latest graduated ones (GET /bonding/curves) and the one
// named by ?symbol= whatever its status, with their price and progress toward graduation (the
// curve's price against the DOGE raised, drawn from its reserves, with where it stands now), and a
// buy: a live quote (what the last buy of a curve really costs, and whether it completes the
// curve), the reservation (signed bonding-reserve) with its countdown, the deposit paid with a PSBT
// the wallet signs, the signed confirm (bonding-confirm), then the reservation until its tokens are
// paid (or it is refunded); a paid buy clears the quote until the person types or picks again (one
// at the curve's new price would read as that buy's). A graduated curve shows its pool, with a
// link to trade it on the swap page, instead of the buy; its graduation.reservationId tells the
// page whether its own buy completed it. The page re-reads its curves every 10 s, so it shows other
// people's buys and the graduation.
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
  TradeQuote,
  wallet,
} from "/amm.js";

const $ = (id) => document.getElementById(id);
const state = {
  curves: [],
  symbol: new URLSearchParams(location.search).get("symbol"),
  quote: null,
  account: null,
  busy: false,
  countdown: null,
  /** Koinu the page suggests after a share refusal (the most this address may buy now). */
  suggested: null,
  /** The reservations this page made: one named as a curve's graduation.reservationId completed it. */
  reservations: new Set(),
};

/** The quote shown: the newest asked; cleared by a settled buy until the person types or picks again. */
const quotes = new TradeQuote({ clear: clearQuote, message: $("quote-message"), trade: "Buy" });

/** How much less than the quote a reservation may give (the curve moves with other buys). */
const RESERVE_SLIPPAGE_BPS = 100n;
/** How often the page re-reads its curves (other people's buys, graduation, the pool's seed). */
const REFRESH_MS = 10_000;
/** The most active curves the page lists (the route's largest page), and the latest graduated ones. */
const ACTIVE_LIMIT = 200;
const GRADUATED_LIMIT = 50;

markNavigation();

const sameSymbol = (a, b) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();
const curve = () => state.curves.find((c) => sameSymbol(c.symbol, state.symbol)) ?? null;
const percent = (bps) => `${(bps / 100).toFixed(2)}%`;
const when = (unix) => new Date(unix * 1000).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });

function refreshButtons() {
  const c = curve();
  $("buy").disabled = state.busy || !state.quote || !state.account || c?.status !== "active";
  $("connect").textContent = state.account ? "Change wallet" : "Connect wallet";
}

/** One of the page's states: loading, error (with a retry), empty (no curve), or the curves. */
function showView(view, text = "") {
  $("curves-loading").hidden = view !== "loading";
  $("retry-row").hidden = view !== "error";
  $("curves-empty").hidden = view !== "empty";
  $("curve-panel").hidden = view !== "curves";
  $("buy-panel").hidden = view !== "curves";
  if (view !== "curves") $("graduation-panel").hidden = true;
  say($("curves-status"), view === "error" ? "error" : view === "loading" ? "info" : "", text);
}

/** Price (koinu per token) as the curve's DOGE reserve grows from its launch to graduation: Y^2 / (X * Y). */
function drawCurve(c) {
  const k = Number(c.virtualDoge) * Number(c.virtualToken);
  const start = Number(c.launchVirtualDoge);
  const raised = Number(c.realDoge);
  const goal = Math.max(Number(c.graduationThreshold), raised);
  const points = [];
  for (let i = 0; i <= 40; i++) {
    const y = start + (goal * i) / 40;
    points.push({ x: (goal * i) / 40 / 1e8, y: (y * y) / k });
  }
  const now = start + raised;
  const graduated = c.status === "graduated";
  lineChart($("chart"), {
    points,
    title: `${c.symbol}: price in koinu per token against the DOGE raised, ${formatDoge(c.realDoge)} of ${formatDoge(c.graduationThreshold)} DOGE raised${graduated ? ", graduated" : ""}`,
    description: `The line is the curve's price as DOGE is raised, from ${formatNumber(points[0].y)} to ${formatNumber(points[points.length - 1].y)} koinu per token; the green point is where it stands now, ${formatNumber((now * now) / k)} koinu per token.`,
    emptyText: "",
    mark: { x: raised / 1e8, y: (now * now) / k },
    yLabel: "koinu per token, by DOGE raised",
  });
  $("chart-note").textContent = graduated
    ? `The curve raised ${formatDoge(c.realDoge)} DOGE and graduated into its ${c.symbol}/DOGE pool.`
    : `The curve graduates into a ${c.symbol}/DOGE pool once ${formatDoge(c.graduationThreshold)} DOGE are raised.`;
}

/** What a curve's status means for a buyer. */
function statusText(c) {
  if (c.status === "graduated")
    return c.graduation?.poolSeeded
      ? "graduated: it trades in its pool on the swap page"
      : "graduated: its pool is being opened";
  if (c.status === "active") return "active: open for buys";
  if (c.status === "awaiting_supply") return "waiting for its launcher to deposit the supply";
  return `failed${c.error ? `: ${c.error}` : ""}`;
}

function showGraduation(c) {
  const panel = $("graduation-panel");
  panel.hidden = c.status !== "graduated";
  if (panel.hidden) return;
  const g = c.graduation;
  const swapUrl = `/?tick=${encodeURIComponent(c.symbol)}`;
  $("graduation-title").textContent = `${c.symbol} graduated into its pool`;
  $("g-summary").textContent =
    `The curve raised ${formatDoge(c.realDoge)} DOGE and sold ${formatTokens(c.tokensSold)} ${c.symbol}. ` +
    `It handed ${formatDoge(g.poolDoge)} DOGE and ${formatTokens(g.poolToken)} ${c.symbol} to the ${c.symbol}/DOGE pool, ` +
    "where the token now trades.";
  $("g-pool").textContent = `${c.symbol}/DOGE`;
  $("g-reserves").textContent = g.pool
    ? `${formatDoge(g.pool.dogeReserve)} DOGE and ${formatTokens(g.pool.tokenReserve)} ${c.symbol}`
    : "–";
  $("g-when").textContent = g.graduatedAt ? when(g.graduatedAt) : "–";
  const link = $("g-swap");
  link.href = swapUrl;
  link.textContent = `Trade ${c.symbol} on the swap page`;
  link.hidden = !g.poolSeeded;
  if (g.poolSeeded) say($("g-message"), "ok", `The ${c.symbol}/DOGE pool is open.`);
  else
    say(
      $("g-message"),
      "info",
      `The pool is being opened; this page shows it once it is${c.error ? ` (the last try was refused: ${c.error}; the service tries again)` : ""}.`,
    );
}

/** The buy form on an active curve; on any other a note saying why there is none and where to go. */
function showBuy(c) {
  const open = c.status === "active";
  $("buy-form").hidden = !open;
  $("buy-closed").hidden = open;
  if (!open) {
    $("buy-closed").replaceChildren();
    if (c.status === "graduated") {
      const link = document.createElement("a");
      link.href = `/?tick=${encodeURIComponent(c.symbol)}`;
      link.textContent = "the swap page";
      const mine = state.reservations.has(c.graduation?.reservationId) ? "Your buy completed the curve. " : "";
      $("buy-closed").append(`${mine}${c.symbol} no longer sells on its curve: buy it in its pool on `, link, ".");
    } else if (c.status === "awaiting_supply")
      $("buy-closed").textContent = `${c.symbol} is not on sale yet: its launcher has not deposited the whole supply.`;
    else $("buy-closed").textContent = `${c.symbol}'s launch did not complete: nothing is for sale.`;
    $("suggest-row").hidden = true;
  }
  refreshButtons();
}

function showCurve() {
  const c = curve();
  if (!c) return;
  $("curve-title").textContent = `${c.symbol} on its bonding curve`;
  $("c-price").textContent = `${formatNumber(Number(c.priceKoinuPerToken))} koinu per ${c.symbol}`;
  $("c-raised").textContent =
    `${formatDoge(c.realDoge)} of ${formatDoge(c.graduationThreshold)} DOGE (${percent(c.progressBps)})`;
  $("c-sold").textContent = `${formatTokens(c.tokensSold)} of ${formatTokens(c.sellableSupply)} ${c.symbol}`;
  $("c-status").textContent = statusText(c);
  $("c-progress").value = c.progressBps;
  $("c-progress").setAttribute("aria-valuetext", `${percent(c.progressBps)} of the graduation threshold`);
  drawCurve(c);
  showGraduation(c);
  showBuy(c);
}

/**
 * The active curves, then the latest graduated ones (both newest launch first), and the page's own
 * curve (?symbol=, or the one it showed) whatever its status now.
 */
async function fetchCurves() {
  const [{ body: active }, { body: graduated }] = await Promise.all([
    api("GET", `/bonding/curves?status=active&limit=${ACTIVE_LIMIT}`),
    api("GET", `/bonding/curves?status=graduated&limit=${GRADUATED_LIMIT}`),
  ]);
  const curves = [...active.curves, ...graduated.curves];
  if (state.symbol && !curves.some((c) => sameSymbol(c.symbol, state.symbol))) {
    // Graduated (or not active yet, or gone) since: show it from its own record.
    curves.push((await api("GET", `/bonding/${encodeURIComponent(state.symbol)}`)).body);
  }
  return curves;
}

async function loadCurves() {
  let curves;
  try {
    curves = await fetchCurves();
  } catch (error) {
    // ?symbol= names no curve (404), or is no symbol at all (400): say so, and show the others.
    if (state.symbol && (error.status === 404 || error.status === 400)) {
      const asked = state.symbol;
      state.symbol = null;
      history.replaceState(null, "", location.pathname);
      curves = await fetchCurves();
      state.curves = curves;
      render();
      const more = curves.length > 0 ? " The other curves are below." : "";
      say($("curves-status"), "error", `There is no bonding curve for ${asked}.${more}`);
      return;
    }
    throw error;
  }
  state.curves = curves;
  render();
}

function render() {
  if (state.curves.length === 0) {
    showView("empty");
    return;
  }
  showView("curves");
  const names = state.curves.map((c) =>
    c.status === "active" ? c.symbol : `${c.symbol} (${c.status.replace("_", " ")})`,
  );
  // The options are rebuilt only when they change (an open list on a phone stays open).
  if (names.join("\n") !== [...$("curve").options].map((o) => o.textContent).join("\n"))
    $("curve").replaceChildren(
      ...state.curves.map((c, i) => {
        const option = document.createElement("option");
        option.value = c.symbol;
        option.textContent = names[i];
        return option;
      }),
    );
  state.symbol = curve()?.symbol ?? state.curves[0].symbol;
  $("curve").value = state.symbol;
  showCurve();
}

/** Shows the quote, and what is special about it: the last tokens cost less than typed; this buy completes the curve. */
function showQuote(quote, typedKoinu) {
  const c = curve();
  $("q-out").textContent = `${formatTokens(quote.amountOut)} ${quote.symbol}`;
  $("q-fee").textContent = `${formatDoge(quote.fee)} DOGE, plus ${formatDoge(quote.payoutCost)} DOGE for the payout`;
  $("q-deposit").textContent = `${formatDoge(quote.depositAmount)} DOGE`;
  const notes = [];
  if (quote.refund !== "0")
    notes.push(
      `Only ${formatTokens(quote.amountOut)} ${quote.symbol} are left on the curve: this buy takes them all for ${formatDoge(quote.amountIn)} DOGE, not the ${formatDoge(typedKoinu)} DOGE you typed, so you deposit only ${formatDoge(quote.depositAmount)} DOGE.`,
    );
  const raisedAfter = BigInt(c.realDoge) + BigInt(quote.amountIn) - BigInt(quote.fee);
  if (quote.refund !== "0" || raisedAfter >= BigInt(c.graduationThreshold))
    notes.push(
      `This buy completes the curve: ${quote.symbol} then graduates into a ${quote.symbol}/DOGE pool and trades on the swap page.`,
    );
  const free = BigInt(c.realToken) - BigInt(c.reservedTokens);
  if (BigInt(c.reservedTokens) > 0n && BigInt(quote.amountOut) > free)
    notes.push(
      `${formatTokens(c.reservedTokens)} ${quote.symbol} are held by other people's reservations now: wait until they are paid or expire (a reservation holds for a few minutes), or buy less.`,
    );
  say($("quote-message"), notes.length > 0 ? "info" : "", notes.join(" "));
}

function clearQuote() {
  state.quote = null;
  for (const id of ["q-out", "q-fee", "q-deposit"]) $(id).textContent = "–";
}

/** The person typed or picked something: the quote is theirs to ask again. */
function askedAgain() {
  quotes.askedAgain();
  void requote();
}

/** Asks for a quote of the amount typed; a newer request wins over an older answer. */
async function requote() {
  const asked = quotes.ask();
  const amountIn = parseDoge($("amount").value);
  const c = curve();
  if (!c || c.status !== "active") return;
  if (amountIn === null || amountIn === "0") {
    clearQuote();
    say($("quote-message"), "error", "Type an amount of DOGE, such as 10 or 2.5.");
    refreshButtons();
    return;
  }
  try {
    const { body: quote } = await api("POST", "/bonding/quote", {
      body: { symbol: state.symbol, side: "BUY", amountIn },
    });
    if (!quotes.isNewest(asked)) return;
    // The reservation is asked for what the person typed; the service takes only the cost of the last tokens.
    state.quote = { ...quote, cost: quote.amountIn, amountIn };
    showQuote(quote, amountIn);
  } catch (error) {
    if (!quotes.isNewest(asked)) return;
    clearQuote();
    say($("quote-message"), "error", describeError(error));
    // The curve graduated (or closed) since the page read it: show it as it is now.
    if (error.code === "CURVE_GRADUATED" || error.code === "CURVE_NOT_ACTIVE") void refresh();
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
      // Its quote goes with it: a quote at the curve's new price would read as this buy's.
      quotes.settled();
      refreshButtons();
      say(
        $("buy-message"),
        "ok",
        `Bought: ${formatTokens(reservation.amountOut)} ${reservation.symbol} paid to ${reservation.address}.`,
      );
      return reservation;
    }
    if (reservation.status === "refunded" || (reservation.status === "expired" && !reservation.pendingTxid)) {
      clearInterval(state.countdown);
      $("o-countdown").textContent = reservation.status;
      const reason = reservation.error ? describeError(reservation.error) : "";
      say(
        $("buy-message"),
        "error",
        `The reservation is ${reservation.status}${reason ? `: ${reason}` : "."} ${payoutText(reservation.refund)}`.trim(),
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

/**
 * After RESERVATION_SHARE_EXCEEDED: the most this address may still reserve (the refusal's cap less
 * what it holds), priced now, offered as the amount to pay instead.
 */
async function suggestWithinShare(error) {
  const { cap, held } = error.details;
  const room = BigInt(cap ?? "0") - BigInt(held ?? "0");
  const symbol = state.symbol;
  if (room <= 0n) {
    say(
      $("buy-message"),
      "error",
      `${describeError(error)} You hold reservations for ${formatTokens(held)} ${symbol} already: pay them, or let them expire (a reservation holds for a few minutes).`,
    );
    return;
  }
  const { body: quote } = await api("POST", "/bonding/quote", {
    body: { symbol, side: "BUY", amountOut: room.toString() },
  });
  state.suggested = quote.amountIn;
  say(
    $("buy-message"),
    "error",
    `${error.message} (${error.code}). What to do: one address may hold at most ${formatTokens(cap)} ${symbol} of this curve in reservations now; buy at most ${formatTokens(room)} ${symbol}, for ${formatDoge(quote.amountIn)} DOGE.`,
  );
  $("use-suggested").textContent = `Pay ${formatDoge(quote.amountIn)} DOGE instead`;
  $("suggest-row").hidden = false;
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
  state.reservations.add(reservation.reservationId);
  $("order").hidden = false;
  $("o-id").textContent =
    `${reservation.reservationId}: ${formatTokens(reservation.reservedAmount)} ${reservation.symbol} held for you`;
  $("o-status").textContent = reservation.status;
  $("o-deposit").textContent = "–";
  $("o-payout").textContent = "–";
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
  let confirmed;
  try {
    confirmed = (
      await api("POST", "/bonding/confirm", {
        body: { reservationId: reservation.reservationId, depositTxid: txid, signature: confirmSignature },
      })
    ).body;
  } catch (error) {
    // A deposit the service refused is consumed and refunded: follow the refund.
    if (!error.details?.refund_payout_id) throw error;
    await follow((await api("GET", `/bonding/reservations/${reservation.reservationId}`)).body);
    return;
  }
  if (confirmed.curve) {
    state.curves = state.curves.map((c) => (sameSymbol(c.symbol, confirmed.curve.symbol) ? confirmed.curve : c));
    showCurve();
  }
  await follow(confirmed);
  // A deposit mined after the confirm is confirmed by the service's pass, which may graduate the
  // curve then: the curve's graduation.reservationId says whose buy completed it.
  await refresh({ evenIfBusy: true });
}

/** Re-reads the curves (quietly: a failure keeps what is shown and says so). */
async function refresh({ evenIfBusy = false } = {}) {
  if (state.busy && !evenIfBusy) return;
  try {
    await loadCurves();
  } catch (error) {
    say(
      $("curves-status"),
      "error",
      `Could not refresh the curves: ${describeError(error)} The figures below are from ${new Date().toLocaleTimeString("en-GB")} or earlier; the page tries again in ${REFRESH_MS / 1000} s.`,
    );
  }
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
  state.suggested = null;
  $("suggest-row").hidden = true;
  refreshButtons();
  try {
    await buy();
  } catch (error) {
    try {
      if (error.code === "RESERVATION_SHARE_EXCEEDED") await suggestWithinShare(error);
      else say($("buy-message"), "error", describeError(error));
    } catch {
      say($("buy-message"), "error", describeError(error));
    }
  } finally {
    state.busy = false;
    // A buy that did not settle (refused, refunded) is quoted again for the person to retry.
    if (curve()?.status === "active" && !quotes.afterSettlement) await requote();
    else refreshButtons();
  }
});
$("use-suggested").addEventListener("click", () => {
  if (state.suggested === null) return;
  $("amount").value = formatDoge(state.suggested);
  $("suggest-row").hidden = true;
  say($("buy-message"), "", "");
  $("amount").focus();
  askedAgain();
});
$("amount").addEventListener("input", () => askedAgain());
$("curve").addEventListener("change", () => {
  state.symbol = $("curve").value;
  history.replaceState(null, "", `${location.pathname}?symbol=${encodeURIComponent(state.symbol)}`);
  showCurve();
  askedAgain();
});

async function start() {
  showView("loading", "Loading the curves…");
  try {
    await loadCurves();
  } catch (error) {
    showView("error", `Could not load the curves: ${describeError(error)}`);
    return;
  }
  await requote();
  setInterval(async () => {
    if (state.busy) return;
    const before = curve();
    await refresh();
    const after = curve();
    // A quote is re-asked when the curve moved (another buy), so that its notes stay true; none
    // after a settled buy until the person asks (it would read as that buy's).
    const moved = before?.realDoge !== after?.realDoge || before?.status !== after?.status;
    if (after?.status === "active" && moved && !quotes.afterSettlement) await requote();
  }, REFRESH_MS);
}

$("retry").addEventListener("click", () => void start());
void start();
refreshButtons();
