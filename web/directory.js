// The launchpad's storefront: every collection as a card with its image (its first inscription when
// that is an image, else art drawn from its name), its price, "X / Y minted" with a progress bar, and
// a live counter (server-sent events for the first cards, the directory re-read for the rest).
import { api, describeError, formatDoge, showWalletAddress } from "/app.js";

const list = document.getElementById("collections");
const status = document.getElementById("status");
/** The launchpad allows 8 open streams per client: the first 6 cards follow theirs, the rest are polled. */
const LIVE_STREAMS = 6;
const POLL_MS = 10_000;
const cards = new Map();

showWalletAddress(document.getElementById("wallet"));

/** Art for a collection without an image: its initials over a colour its name picks (inline SVG, no request). */
function drawnArt(name, slug) {
  let hash = 0;
  for (const ch of slug) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const hue = hash % 360;
  const initials = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0].toUpperCase())
    .join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="hsl(${hue} 45% 30%)"/><circle cx="78" cy="22" r="30" fill="hsl(${(hue + 40) % 360} 55% 45%)"/><text x="50" y="62" font-family="system-ui,sans-serif" font-size="34" font-weight="700" text-anchor="middle" fill="#fff">${initials.replace(/[<&>]/g, "")}</text></svg>`;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** The collection's first inscription when the index holds it as an image, else null. */
async function firstImage(collection, explorerUrl) {
  if (!explorerUrl || collection.minted === 0) return null;
  try {
    const first = await api("GET", `/collections/${encodeURIComponent(collection.slug)}/mints/0`);
    if (!first.inscription_id) return null;
    const base = `${explorerUrl}/api/explorer/inscription/${encodeURIComponent(first.inscription_id)}`;
    const inscription = await api("GET", "", { base });
    return /^image\/(png|jpeg|gif|webp|avif)$/.test(inscription.content_type ?? "") ? `${base}/content` : null;
  } catch {
    return null; // the drawn art stands in
  }
}

function deployBadge(collection) {
  if (collection.deploy.status === "failed") return { text: "Deploy failed: not mintable", kind: "bad" };
  if (collection.deploy.status !== "indexed") return { text: "Being deployed on chain", kind: "" };
  if (collection.minted >= collection.max) return { text: "Sold out", kind: "" };
  return { text: "Minting now", kind: "good" };
}

function showCount(slug, minted, max) {
  const card = cards.get(slug);
  if (!card) return;
  card.collection.minted = minted;
  card.count.textContent = `${minted} / ${max} minted`;
  card.progress.value = minted;
  card.progress.max = max;
  card.progress.setAttribute("aria-valuetext", `${minted} of ${max} minted`);
  const badge = deployBadge(card.collection);
  card.badge.textContent = badge.text;
  card.badge.className = `badge ${badge.kind}`;
}

function renderCard(collection) {
  const li = document.createElement("li");
  li.className = "card";
  li.dataset.slug = collection.slug;
  const href = `/collection.html?slug=${encodeURIComponent(collection.slug)}`;
  const image = document.createElement("img");
  image.className = "art";
  image.alt = "";
  image.src = drawnArt(collection.name, collection.slug);
  const body = document.createElement("div");
  body.className = "body";
  const link = document.createElement("a");
  link.href = href;
  link.textContent = collection.name;
  const price = document.createElement("span");
  price.className = "price";
  price.textContent = collection.price_koinu === "0" ? "Free" : `${formatDoge(collection.price_koinu)} DOGE`;
  const count = document.createElement("span");
  count.className = "meta counter-line";
  count.setAttribute("aria-live", "polite");
  const progress = document.createElement("progress");
  progress.className = "progress";
  progress.setAttribute("aria-label", `${collection.name}: minted so far`);
  const badge = document.createElement("span");
  body.append(link, price, count, progress, badge);
  li.append(image, body);
  cards.set(collection.slug, { collection, count, progress, badge, image });
  showCount(collection.slug, collection.minted, collection.max);
  return li;
}

function follow(slug) {
  const events = new EventSource(`/api/collections/${encodeURIComponent(slug)}/events`);
  events.addEventListener("minted", (event) => {
    const { minted, max } = JSON.parse(event.data);
    showCount(slug, minted, max);
  });
}

async function poll() {
  try {
    const { items } = await api("GET", "/collections?limit=500");
    for (const c of items) {
      const card = cards.get(c.slug);
      if (!card) continue;
      card.collection.deploy = c.deploy;
      showCount(c.slug, Math.max(c.minted, card.collection.minted), c.max);
    }
  } catch {
    // the next poll tries again; the cards keep their last counts
  }
}

async function load() {
  const [{ items }, config] = await Promise.all([api("GET", "/collections?limit=500"), api("GET", "/config")]);
  list.replaceChildren();
  list.removeAttribute("aria-busy");
  if (items.length === 0) {
    status.className = "message";
    status.textContent = "";
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = "No collection is listed yet. Creators list theirs through the launchpad API; come back soon.";
    list.append(empty);
    return;
  }
  status.className = "message";
  status.textContent = "";
  for (const c of items) list.append(renderCard(c));
  items.slice(0, LIVE_STREAMS).forEach((c) => follow(c.slug));
  if (items.length > LIVE_STREAMS) setInterval(poll, POLL_MS);
  for (const c of items) {
    firstImage(c, config.explorer_url).then((src) => {
      if (src) {
        const card = cards.get(c.slug);
        card.image.src = src;
        card.image.alt = `${c.name}: its first inscription`;
      }
    });
  }
}

load().catch((error) => {
  list.replaceChildren();
  list.removeAttribute("aria-busy");
  status.className = "message error";
  status.textContent = `Could not load the collections: ${describeError(error)}. Reload the page to try again.`;
});
