// What the AMM pages share: calls to /api with the service's refusal and what to do about it, the
// wallet (window.wallet from /wallet-provider.js), signed orders (the exact text from
// GET /api/auth/message, signed by the wallet), deposits paid with a PSBT the page builds and the
// wallet signs (broadcast through the explorer), amounts, a trade form's quote (cleared once its
// trade settles), and the inline SVG charts.

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details ?? {};
  }
}

/** What a person can do about a refusal, by its code (docs/api.md "AMM" lists them). */
const NEXT_STEP = {
  RATE_LIMITED: "wait a minute and try again",
  QUOTE_EXPIRED: "ask for a new quote",
  QUOTE_NOT_FOUND: "ask for a new quote",
  POOL_EMPTY: "this pool has no liquidity yet: add some, or choose another pool",
  AMOUNT_TOO_SMALL: "trade at least 0.01 DOGE",
  INSUFFICIENT_LIQUIDITY: "trade a smaller amount",
  EXCESSIVE_OUTPUT: "ask for less than the pool holds",
  OUTPUT_ZERO: "trade a larger amount",
  MIN_OUT_NOT_MET: "the price moved past your slippage; your deposit is refunded: quote again, or allow more slippage",
  DEPOSIT_LATE: "the deposit came after the order expired; it is refunded",
  TOO_MANY_PENDING: "wait until your earlier payments are mined, then try again",
  TOO_MANY_RESERVATIONS: "finish or let expire one of your reservations first",
  RESERVATION_SHARE_EXCEEDED: "reserve a smaller amount",
  RESERVATION_CAP_REACHED: "wait for other reservations to settle or expire",
  CURVE_GRADUATED: "this token now trades in its pool: use the swap page",
  CURVE_NOT_ACTIVE: "this curve is not trading yet",
  CURVE_NOT_FOUND: "choose a curve from the list",
  RESERVATION_NOT_HONOURED:
    "the curve moved since your reservation and your deposit is refunded: buy again at the new price",
  DEPOSIT_TOO_SMALL: "the deposit was less than asked and is refunded: pay the exact amount shown",
  SOLD_OUT: "the curve is sold out: the token trades in its pool after graduation",
  INSUFFICIENT_FUNDS: "add DOGE to your address and try again",
  NOTHING_TO_CLAIM: "no fee has been earned yet",
  CLAIM_TOO_SMALL: "claim later, once at least 0.01 DOGE has been earned",
  SHARES_EXCEED_POSITION: "remove at most the shares you hold",
  WITHDRAWAL_BELOW_COST: "remove more shares at once",
  TICK_ON_BONDING_CURVE: "this token is still on its bonding curve: buy it on the bonding page",
  NETWORK_MISMATCH: "switch your wallet's network",
  NO_WALLET: "install a Dogecoin wallet and reload",
  WALLET_REFUSED: "approve the request in your wallet to go on",
  WALLET_UNSUPPORTED: "choose another wallet for this step",
  DEPOSIT_NOT_FOUND: "check the transaction id: it must be your payment to the custody, in a mined block",
  DEPOSIT_NOT_DEEP_ENOUGH: "wait for a few more blocks, then ask again",
  DEPOSIT_ALREADY_USED: "nothing to give back: an order took this payment, or it was refunded already",
  DEPOSIT_NOT_FROM_ADDRESS: "connect the wallet whose address paid, then ask again",
  DEPOSIT_NOT_TO_CUSTODY: "check the transaction id: this payment did not go to the custody",
  REFUND_BELOW_COST: "nothing to do: the payment is worth less than sending it back would cost",
};

/**
 * `message` without a last sentence that is `step` (the wallet provider ends WALLET_UNSUPPORTED with
 * "… Choose another wallet for this step."), so that what to do is said once, after the code.
 */
function withoutStep(message, step) {
  const trimmed = message.replace(/[\s.]+$/, "");
  if (!trimmed.toLowerCase().endsWith(step.toLowerCase())) return message;
  const rest = trimmed.slice(0, trimmed.length - step.length).replace(/[\s.;,:]+$/, "");
  return rest || message;
}

/** One line for a person: the service's (or wallet's) message, its code, and what to do. */
export function describeError(error) {
  const code = error && typeof error === "object" ? error.code : undefined;
  const said = error && typeof error === "object" && "message" in error ? error.message : String(error);
  const step = typeof code === "string" && Object.hasOwn(NEXT_STEP, code) ? NEXT_STEP[code] : undefined;
  const message = step ? withoutStep(said, step) : said;
  const next = step ? ` What to do: ${step}.` : "";
  return `${message}${code ? ` (${code})` : ""}.${next}`.replace(/\.\./g, ".");
}

export async function api(method, path, { body, base = "/api" } = {}) {
  let response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: body !== undefined ? { "Content-Type": "application/json" } : {},
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(0, "NETWORK_ERROR", "the service did not answer; check your connection and retry");
  }
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    throw new ApiError(response.status, "BAD_RESPONSE", `unexpected answer (HTTP ${response.status})`);
  }
  if (!response.ok) {
    const error = parsed?.error ?? { code: `HTTP_${response.status}`, message: `HTTP ${response.status}` };
    throw new ApiError(response.status, error.code, error.message, error.details);
  }
  return { status: response.status, body: parsed };
}

const KOINU = 100000000n;

/** Koinu (decimal string) as DOGE with up to 8 decimals. */
export function formatDoge(koinu) {
  const value = BigInt(koinu);
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const fraction = (abs % KOINU).toString().padStart(8, "0").replace(/0+$/, "");
  return `${sign}${abs / KOINU}${fraction ? `.${fraction}` : ""}`;
}

/** DOGE typed by a person ("1.5") as koinu, or null. */
export function parseDoge(text) {
  const match = /^\s*(\d+)(?:\.(\d{0,8}))?\s*$/.exec(text ?? "");
  if (!match) return null;
  return (BigInt(match[1]) * KOINU + BigInt((match[2] ?? "").padEnd(8, "0"))).toString();
}

/** Whole token units with thousands separators. */
export const formatTokens = (units) => BigInt(units).toLocaleString("en-US");

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function say(element, kind, text) {
  element.className = `message ${kind}`;
  element.textContent = text;
}

/** window.wallet, or a clear error when the provider did not load. */
export function wallet() {
  if (!window.wallet || typeof window.wallet.connect !== "function")
    throw new ApiError(0, "NO_WALLET", "the wallet provider did not load: reload the page");
  return window.wallet;
}

/** Connects the wallet (the provider asks which one when there are several); answers the account. */
export async function connectWallet(statusElement) {
  const account = await wallet().connect();
  if (statusElement) statusElement.textContent = `${account.wallet}: ${account.address}`;
  return account;
}

/** Signs the exact text the AMM answers for `action` with `fields` (GET /auth/message). */
export async function signOrder(action, fields) {
  const query = new URLSearchParams({ action, ...fields });
  const { body } = await api("GET", `/auth/message?${query}`);
  return wallet().signMessage(body.message);
}

/** A fresh nonce and an expiry 10 minutes out, for the authorizations (removes, claims, reservations). */
export function authorization() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  const nonce = `page-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  return { nonce, expiresAt: Math.floor(Date.now() / 1000) + 600 };
}

/**
 * Pays `amountKoinu` DOGE to `to` from the connected address: the page builds the PSBT from the
 * explorer's UTXOs, the wallet signs it, the page finalises it and the explorer broadcasts it.
 * `progress(text)` is told each step. Answers the txid.
 */
export async function payDoge(to, amountKoinu, progress) {
  const providers = window.DogeWallets;
  progress("Building the payment from your coins…");
  const built = await providers.preparePayment(to, amountKoinu);
  progress(
    `Sign the payment of ${formatDoge(amountKoinu)} DOGE (network fee ${formatDoge(built.feeKoinu)} DOGE) in your wallet…`,
  );
  const signed = await wallet().signPSBT(built.psbt);
  const hex = providers.finishPayment(signed);
  progress("Broadcasting the payment…");
  const { body } = await api("POST", "/tx/broadcast", { base: `${wallet().explorerUrl}/api`, body: { hex } });
  return body.txid;
}

/**
 * A table row of `texts`, each cell labelled with its column's header (data-label), which a table of
 * class "stacked" shows before the figure at phone width (amm.css).
 */
export function tableRow(table, texts) {
  const labels = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  const row = document.createElement("tr");
  texts.forEach((text, i) => {
    const cell = document.createElement("td");
    cell.textContent = text;
    if (labels[i]) cell.dataset.label = labels[i];
    row.append(cell);
  });
  return row;
}

/**
 * A trade form's quote (swap page, bonding page): only the newest asked is shown. A settled trade
 * clears it, drops any answer in flight and says how to get the next; it stays cleared (no re-quote
 * by the page's timer) until the person types or picks again, since a quote at the new price above
 * "Swapped: …" or "Bought: …" would read as that trade's.
 */
export class TradeQuote {
  #asked = 0;
  #afterSettlement = false;

  /** `clear()` empties the form's quote; `message` is its message element; `trade` is "Swap" or "Buy". */
  constructor({ clear, message, trade }) {
    this.clear = clear;
    this.message = message;
    this.trade = trade;
  }

  /** A quote is asked: its number, for isNewest. */
  ask() {
    return ++this.#asked;
  }

  isNewest(asked) {
    return asked === this.#asked;
  }

  get afterSettlement() {
    return this.#afterSettlement;
  }

  settled() {
    this.#afterSettlement = true;
    this.#asked += 1;
    this.clear();
    say(this.message, "info", `${this.trade} done. Change the amount, or type it again, for the next trade's quote.`);
  }

  /** The person typed or picked something. */
  askedAgain() {
    this.#afterSettlement = false;
  }
}

/** Marks the current page's link in the navigation. */
export function markNavigation() {
  for (const link of document.querySelectorAll("nav.pages a")) {
    if (new URL(link.href).pathname === location.pathname) link.setAttribute("aria-current", "page");
  }
}

/** A number for people: grouped, at most 2 decimals (4 significant digits below 1). */
export const formatNumber = (value) =>
  value >= 1
    ? value.toLocaleString("en-US", { maximumFractionDigits: 2 })
    : value.toLocaleString("en-US", { maximumSignificantDigits: 4 });

const SVG = "http://www.w3.org/2000/svg";
const svg = (name, attributes) => {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
};

/** Charts drawn by lineChart, by container: their options, to draw them again when the container's width changes. */
const charts = new WeakMap();
const resized =
  typeof ResizeObserver === "function"
    ? new ResizeObserver((entries) => {
        for (const entry of entries) {
          const chart = charts.get(entry.target);
          if (chart && Math.abs(chartWidth(entry.target) - chart.width) >= 1)
            drawLineChart(entry.target, chart.options);
        }
      })
    : null;

/** Below this width (CSS px) a chart is drawn for a phone: 200 px tall instead of 220. */
const NARROW_CHART = 480;

/** The width the chart is drawn at: its container's own (CSS px), or 600 while the container is hidden. */
function chartWidth(container) {
  const width = Math.floor(container.getBoundingClientRect().width);
  return width > 0 ? width : 600;
}

/**
 * A line chart of `points` ([{x, y}], numbers) as inline SVG, with `title` (and an optional
 * `description`) for screen readers and an optional marked point. Empty points draw an empty frame
 * with `emptyText`. The chart is drawn at its container's width, one SVG unit to a CSS pixel, so its
 * 12 px labels stay 12 px on a phone (a fixed 600-unit viewBox scaled to 350 px drew them at 7 px),
 * and again whenever the container's width changes.
 */
export function lineChart(container, options) {
  drawLineChart(container, options);
  if (resized && !charts.has(container)) resized.observe(container);
  charts.set(container, { options, width: chartWidth(container) });
}

function drawLineChart(container, { points, title, description, emptyText, mark, yLabel }) {
  const width = chartWidth(container);
  const narrow = width < NARROW_CHART;
  const height = narrow ? 200 : 220;
  const fontSize = 12;
  /** About how wide `text` is at `size` px (system-ui digits and lower case average under 0.62 em). */
  const textWidth = (text, size = fontSize) => Math.ceil(text.length * size * 0.62);
  const pad = { left: 48, right: 12, top: 14, bottom: 28 };
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: "chart",
    role: "img",
    "aria-label": title,
  });
  const titleElement = svg("title", {});
  titleElement.textContent = title;
  chart.append(titleElement);
  if (description) {
    const desc = svg("desc", {});
    desc.textContent = description;
    chart.append(desc);
  }
  chart.append(svg("rect", { x: 0, y: 0, width, height, fill: "#fff" }));
  const current = charts.get(container);
  if (current) current.width = width;
  if (points.length === 0) {
    // The empty chart's sentence, in as many centred lines as the width needs.
    const lines = [];
    for (const word of (emptyText ?? "").split(/\s+/).filter(Boolean)) {
      const last = lines.length - 1;
      if (last >= 0 && textWidth(`${lines[last]} ${word}`, 16) <= width - 24) lines[last] += ` ${word}`;
      else lines.push(word);
    }
    lines.forEach((line, i) => {
      const text = svg("text", {
        x: width / 2,
        y: height / 2 + (i - (lines.length - 1) / 2) * 22 + 6,
        "text-anchor": "middle",
        fill: "#6b6457",
        "font-size": 16,
      });
      text.textContent = line;
      chart.append(text);
    });
    container.replaceChildren(chart);
    return;
  }
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y).concat(mark ? [mark.y] : []);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  // One price (a single swap, or no change): the flat line is drawn across the middle, 5% either side.
  if (y0 === y1) [y0, y1] = [y0 - (Math.abs(y0) * 0.05 || 1), y1 + (Math.abs(y1) * 0.05 || 1)];
  const ticks = [y0, (y0 + y1) / 2, y1].map((y) => ({ y, text: formatNumber(y) }));
  // The left margin fits the longest y-axis label.
  pad.left = Math.max(pad.left, Math.max(...ticks.map((t) => textWidth(t.text))) + 10);
  const sx = (x) => pad.left + ((x - x0) / (x1 - x0 || 1)) * (width - pad.left - pad.right);
  const sy = (y) => height - pad.bottom - ((y - y0) / (y1 - y0 || 1)) * (height - pad.top - pad.bottom);
  for (const { y, text } of ticks) {
    chart.append(svg("line", { x1: pad.left, x2: width - pad.right, y1: sy(y), y2: sy(y), stroke: "#e3dccb" }));
    const label = svg("text", {
      x: pad.left - 6,
      y: sy(y) + 4,
      "text-anchor": "end",
      fill: "#6b6457",
      "font-size": fontSize,
    });
    label.textContent = text;
    chart.append(label);
  }
  if (yLabel) {
    // Under the plot, from its left edge, or from the chart's when the plot is too narrow for it.
    const x = Math.max(4, Math.min(pad.left, width - 4 - textWidth(yLabel)));
    const label = svg("text", { x, y: height - 8, fill: "#6b6457", "font-size": fontSize });
    label.textContent = yLabel;
    chart.append(label);
  }
  const path = points.map((p, i) => `${i === 0 ? "M" : "L"}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" ");
  chart.append(svg("path", { d: path, fill: "none", stroke: "#8a6308", "stroke-width": 2.5 }));
  for (const p of points.length <= 40 ? points : [])
    chart.append(svg("circle", { cx: sx(p.x), cy: sy(p.y), r: 3, fill: "#8a6308" }));
  if (mark)
    chart.append(
      svg("circle", { cx: sx(mark.x), cy: sy(mark.y), r: 6, fill: "#1f6f3a", stroke: "#fff", "stroke-width": 2 }),
    );
  container.replaceChildren(chart);
}

/** A payout's state in words. */
export function payoutText(payout) {
  if (!payout) return "";
  const what =
    payout.asset === "DOGE" ? `${formatDoge(payout.amount)} DOGE` : `${formatTokens(payout.amount)} ${payout.tick}`;
  const states = {
    queued: "queued",
    inscribing: "being inscribed",
    inscribed: "inscribed, being sent",
    sent: `sent (${payout.txid})`,
    confirmed: `confirmed on chain (${payout.txid})`,
    below_dust: "kept owed (below the dust limit)",
    failed: "failed: the operator has been told",
    frozen: "frozen: its deposit left the chain",
  };
  return `${what}: ${states[payout.status] ?? payout.status}`;
}
