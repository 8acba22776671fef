// The collection page: the live "X / Y minted" counter (server-sent events), then connect, claim,
// pay (a payment PSBT built by the launchpad, signed by window.wallet.signPSBT, broadcast through the
// explorer) and mint, following the mint until the index judges its inscription. Nothing can be
// claimed, paid or minted until the collection's own deploy is confirmed on chain (deploy.status
// indexed): the page says so and follows the deploy; a failed deploy shows its error and no mint.
import {
  ApiError,
  api,
  currentSession,
  describeError,
  forgetSession,
  formatDoge,
  param,
  showWalletAddress,
  signIn,
  sleep,
  wallet,
  walletFailure,
} from "/app.js";

const $ = (id) => document.getElementById(id);
const slug = param("slug");
const state = {
  collection: null,
  session: currentSession(),
  reservation: null,
  paymentTxid: null,
  config: null,
  // The reason of the last 409 COLLECTION_NOT_DEPLOYED (the deploy not yet in the index, or not deep enough), or null.
  deployBlock: null,
  watchingDeploy: false,
};

const DEPLOYING = "The collection is being deployed on chain; minting opens once its deploy is confirmed";

function say(id, kind, text) {
  const element = $(id);
  element.className = `message ${kind}`;
  element.textContent = text;
}

/** Whether the collection takes claims and payments: its deploy is confirmed and no claim was refused for want of it since. */
function deployed() {
  return state.collection !== null && state.collection.deploy.status === "indexed" && state.deployBlock === null;
}

/** The deploy's state in words: a sentence while it is not confirmed, its error (and no mint steps) when it failed. */
function showDeploy() {
  const c = state.collection;
  if (!c) return;
  const failed = c.deploy.status === "failed";
  for (const id of ["claim-step", "pay-step", "mint-step"]) {
    if (failed) $(id).hidden = true;
  }
  if (failed)
    say(
      "deploy",
      "error",
      `This collection's deploy failed, so it cannot be minted: ${c.deploy.error ?? "no reason given"}`,
    );
  else if (!deployed()) say("deploy", "info", `${DEPLOYING}${state.deployBlock ? ` (${state.deployBlock})` : ""}.`);
  else say("deploy", "", "");
}

/** Reads the collection again every 3 s until its deploy is confirmed (minting opens) or failed. */
async function watchDeploy() {
  if (state.watchingDeploy) return;
  state.watchingDeploy = true;
  try {
    for (;;) {
      await sleep(3000);
      try {
        const fresh = await api("GET", `/collections/${encodeURIComponent(slug)}`);
        state.collection = { ...fresh, minted: Math.max(fresh.minted, state.collection.minted) };
      } catch {
        continue; // the next read tries again
      }
      const status = state.collection.deploy.status;
      // Confirmed: claims may be tried again (a claim refused for depth says so again, and this watch resumes).
      if (status === "indexed") state.deployBlock = null;
      showDeploy();
      refreshButtons();
      if (status === "indexed" || status === "failed") return;
    }
  } finally {
    state.watchingDeploy = false;
  }
}

/** A 409 COLLECTION_NOT_DEPLOYED: the buttons wait for the deploy (or the deploy failed); answers whether it was one. */
function notDeployed(error) {
  if (!(error instanceof ApiError && error.code === "COLLECTION_NOT_DEPLOYED")) return false;
  const reason = error.details.reason ?? "DEPLOY_NOT_INDEXED";
  if (reason === "DEPLOY_FAILED") {
    state.collection.deploy.status = "failed";
    state.collection.deploy.error = error.details.error ?? error.message;
  } else state.deployBlock = reason;
  showDeploy();
  refreshButtons();
  if (reason !== "DEPLOY_FAILED") void watchDeploy();
  return true;
}

/** Runs a step's action with its button disabled; failures are shown beside the button. */
function step(buttonId, messageId, action) {
  $(buttonId).addEventListener("click", async () => {
    $(buttonId).disabled = true;
    try {
      await action();
    } catch (error) {
      if (notDeployed(error)) say(messageId, "info", "");
      else say(messageId, "error", describeError(error));
    } finally {
      refreshButtons();
    }
  });
}

function priced() {
  return state.collection && state.collection.price_koinu !== "0";
}

function refreshButtons() {
  const live = state.reservation && state.reservation.expires_at > Date.now() / 1000;
  $("connect").disabled = false;
  $("connect").textContent = state.session ? "Change wallet" : "Connect wallet";
  const open = deployed();
  $("claim").disabled = !state.session || !open || state.collection.minted >= state.collection.max;
  $("pay").disabled = !state.session || !open || !live || !priced() || state.paymentTxid !== null;
  $("mint").disabled =
    !state.session || !open || !live || (priced() && state.paymentTxid === null) || state.minting === true;
  showWalletAddress($("wallet"));
}

function showCount({ minted, max }) {
  $("minted").textContent = String(minted);
  $("max").textContent = String(max);
  if (state.collection) state.collection.minted = minted;
}

/** The counter follows the collection's event stream; EventSource reconnects by itself. */
function followCounter() {
  const events = new EventSource(`/api/collections/${encodeURIComponent(slug)}/events`);
  events.addEventListener("minted", (event) => {
    showCount(JSON.parse(event.data));
    refreshButtons();
  });
  events.addEventListener("error", () => {
    if (events.readyState === EventSource.CLOSED)
      say("status", "error", "the live counter stopped; reload the page to follow it again");
  });
}

async function load() {
  if (!slug) throw new ApiError(400, "MISSING_SLUG", "this page needs ?slug=<collection>");
  state.config = await api("GET", "/config");
  state.collection = await api("GET", `/collections/${encodeURIComponent(slug)}`);
  const c = state.collection;
  document.title = `Launchpad: ${c.name}`;
  $("name").textContent = c.name;
  $("details").textContent =
    `${c.price_koinu === "0" ? "Free to mint" : `${formatDoge(c.price_koinu)} DOGE each`} · creator ${c.creator_address}`;
  $("members-link").href = `/members.html?slug=${encodeURIComponent(slug)}`;
  if (!priced()) {
    $("pay-step").hidden = true;
    $("mint-title").textContent = "3. Mint";
  }
  showCount(c);
  showDeploy();
  if (c.deploy.status !== "indexed" && c.deploy.status !== "failed") void watchDeploy();
  if (state.session) {
    say("connect-message", "ok", `Connected as ${state.session.address}`);
    try {
      state.reservation = await api("GET", `/collections/${encodeURIComponent(slug)}/claim`, {
        token: state.session.token,
      });
      say(
        "claim-message",
        "ok",
        `You hold index #${state.reservation.index} until ${new Date(state.reservation.expires_at * 1000).toLocaleTimeString()}`,
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) state.session = null;
      else if (!(error instanceof ApiError && error.code === "NO_RESERVATION")) throw error;
    }
  }
  followCounter();
}

step("connect", "connect-message", async () => {
  if (state.session) {
    // "Change wallet": forget the choice and the session, then sign in with the wallet picked now.
    window.wallet?.choose?.(null);
    forgetSession();
    state.session = null;
  }
  say("connect-message", "info", "Waiting for the wallet…");
  state.session = await signIn();
  const name = window.wallet?.name;
  say("connect-message", "ok", `Connected as ${state.session.address}${name ? ` with ${name}` : ""}`);
});

/**
 * What the creator owes back on the claimant's recorded payments (the launchpad refunds nothing:
 * payments go straight to the creator, who settles a wrong amount).
 */
const owedText = (payments) =>
  payments.length === 0
    ? ""
    : ` · the creator owes you ${payments.map((p) => `${formatDoge(p.settlement.owed_koinu)} DOGE (${p.settlement.reason}, payment ${p.txid.slice(0, 12)}…)`).join(", ")}`;

/**
 * A mint the index judged no member token at the buyer's address (rejected_by_index): what happened
 * (the index's reason) and what the buyer is owed (the payment's settlement, the creator's to pay).
 */
/** The index's reasons for not counting a mint, in words (the code is shown beside them). */
const INDEX_REASONS = {
  ALREADY_MINTED: "another inscription took this token first",
  WRONG_INSCRIBER: "it was not inscribed by the collection's inscriber",
  NOT_AT_CLAIMANT: "it did not land at your address",
};

function rejectedText(mint) {
  const reason = mint.index_reason ?? "NOT_A_MEMBER";
  const words = INDEX_REASONS[reason] ? ` (${INDEX_REASONS[reason]})` : "";
  const what = `The index did not count #${mint.index} as your token of ${state.collection.name}: ${reason}${words}. It is not yours and does not count in the total.`;
  const settlement = mint.payment && mint.payment.settlement;
  if (!settlement) return `${what} ${mint.payment ? "Your payment is recorded." : "You paid nothing for it."}`;
  return `${what} You are owed ${formatDoge(settlement.owed_koinu)} DOGE (${settlement.reason}, payment ${mint.payment.txid.slice(0, 12)}…): the creator ${settlement.owed_by} owes it back to ${settlement.owed_to} (you); the launchpad holds no payment and cannot refund it.`;
}

step("claim", "claim-message", async () => {
  const reservation = await api("POST", `/collections/${encodeURIComponent(slug)}/claim`, {
    token: state.session.token,
  });
  state.reservation = reservation;
  state.paymentTxid = null;
  say(
    "claim-message",
    "ok",
    `You hold index #${reservation.index} until ${new Date(reservation.expires_at * 1000).toLocaleTimeString()}${owedText(reservation.owed_payments ?? [])}`,
  );
});

step("pay", "pay-message", async () => {
  const r = state.reservation;
  const publicKey = state.session.public_key ?? (await wallet().connect()).publicKey;
  say("pay-message", "info", "Building the payment…");
  const built = await api("POST", `/collections/${encodeURIComponent(slug)}/payment-psbt`, {
    token: state.session.token,
    body: { reservation_id: r.reservation_id, public_key: publicKey },
  });
  say(
    "pay-message",
    "info",
    `Sign the payment of ${formatDoge(state.collection.price_koinu)} DOGE (network fee ${formatDoge(built.fee_koinu)} DOGE) in your wallet…`,
  );
  let signed;
  try {
    signed = await wallet().signPSBT(built.psbt);
  } catch (error) {
    throw walletFailure(error, "sign the payment");
  }
  const { hex } = await api("POST", `/collections/${encodeURIComponent(slug)}/payment`, {
    token: state.session.token,
    body: { reservation_id: r.reservation_id, psbt: signed },
  });
  if (!state.config.explorer_url)
    throw new ApiError(503, "NO_EXPLORER", "this launchpad names no explorer to broadcast through");
  const { txid } = await api("POST", "/tx/broadcast", { base: `${state.config.explorer_url}/api`, body: { hex } });
  state.paymentTxid = txid;
  say("pay-message", "ok", `Payment sent: ${txid}`);
});

/** Asks for the mint until the payment is in a block the index holds, then follows the mint. */
step("mint", "mint-message", async () => {
  const r = state.reservation;
  state.minting = true;
  try {
    let mint;
    for (;;) {
      try {
        mint = await api("POST", `/collections/${encodeURIComponent(slug)}/mint`, {
          token: state.session.token,
          body: { reservation_id: r.reservation_id, ...(state.paymentTxid ? { payment_txid: state.paymentTxid } : {}) },
        });
        break;
      } catch (error) {
        if (!(
          error instanceof ApiError &&
          (error.code === "PAYMENT_NOT_FOUND" ||
            error.code === "PAYMENT_NOT_DEEP_ENOUGH" ||
            error.status === 503 ||
            error.status === 429)
        ))
          throw error;
        say("mint-message", "info", "Waiting for the payment to be confirmed in a block…");
        // Every launchpad write is rate limited per client: ask every 2 s, and back off on a 429.
        await sleep(error.status === 429 ? 10_000 : 2000);
      }
    }
    const labels = {
      accepted: "accepted",
      submitted: "inscribing…",
      revealed: "inscribed, waiting for the index to confirm it…",
      confirmed: "minted",
      failed: "failed",
    };
    const final = ["confirmed", "failed", "rejected_by_index"];
    for (;;) {
      say(
        "mint-message",
        mint.status === "confirmed" ? "ok" : final.includes(mint.status) ? "error" : "info",
        mint.status === "confirmed"
          ? `Minted #${mint.index}: inscription ${mint.inscription_id}${mint.payment && mint.payment.settlement ? owedText([mint.payment]) : ""}`
          : mint.status === "failed"
            ? `The mint of #${mint.index} failed: ${mint.error ?? "unknown reason"}${mint.payment ? "; your payment still counts for your next claim of this index" : ""}`
            : mint.status === "rejected_by_index"
              ? rejectedText(mint)
              : `#${mint.index}: ${labels[mint.status] ?? mint.status}`,
      );
      if (final.includes(mint.status)) break;
      await sleep(1000);
      mint = await api("GET", `/collections/${encodeURIComponent(slug)}/mints/${mint.index}`);
    }
    if (mint.status === "confirmed" || mint.status === "rejected_by_index") {
      // The reservation is used either way: another token needs a new claim.
      state.reservation = null;
      state.paymentTxid = null;
      say(
        "claim-message",
        "info",
        mint.status === "confirmed"
          ? `#${mint.index} is yours; claim again to mint another`
          : `#${mint.index} is not yours; claim again to mint another index`,
      );
      say("pay-message", "info", "");
    }
  } finally {
    state.minting = false;
  }
});

load().then(refreshButtons, (error) => {
  say("status", "error", `Could not load this collection: ${describeError(error)}`);
  refreshButtons();
});
