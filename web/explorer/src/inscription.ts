/**
 * The inscription page (/inscription/<id>): its content shown safely, its ACTION, where it was
 * inscribed, who holds it now and its owner history (every move, from
 * GET /api/explorer/inscription/<id>/moves, oldest first, a page at a time).
 *
 * Content: images inline (<img> runs no script, SVG included); text and JSON as text; HTML only in
 * an iframe whose sandbox allows nothing (no scripts, no same origin, no forms, no popups), framed
 * from the content route, which adds its own `sandbox` policy; anything else offered as a download.
 */
import {
  ApiError,
  api,
  count,
  empty,
  errorState,
  facts,
  h,
  isMissingRoute,
  link,
  loading,
  mono,
  pathParam,
  paths,
  renderMain,
  section,
  setTitle,
  startPage,
  tableRow,
} from "./lib";

const id = pathParam("/inscription/");
/** Text bodies larger than this are offered as a download instead of shown. */
const MAX_TEXT_BYTES = 256 * 1024;
const IMAGE_TYPES = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/svg+xml",
  "image/bmp",
]);
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-javascript",
]);

const mimeOf = (contentType: string | null) => (contentType ?? "").split(";")[0].trim().toLowerCase();

async function bodyText(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new ApiError(response.status, `HTTP_${response.status}`, "the content could not be read");
  return new TextDecoder("utf-8", { fatal: false }).decode(await response.arrayBuffer());
}

function download(inscription: any, reason: string): HTMLElement {
  return h(
    "p",
    { className: "download" },
    reason,
    " ",
    h(
      "a",
      { href: inscription.content_url, download: `inscription-${inscription.number}`, className: "button" },
      `Download the content (${count(inscription.body_size, "byte")})`,
    ),
  );
}

/** The content, shown the safe way for its type. */
async function content(inscription: any): Promise<HTMLElement[]> {
  const mime = mimeOf(inscription.content_type);
  const label = `Content of inscription #${inscription.number} (${inscription.content_type ?? "no content type"})`;
  if (inscription.body_size === 0) return [h("p", { className: "state empty" }, "This inscription has an empty body.")];
  if (IMAGE_TYPES.has(mime))
    return [h("img", { src: inscription.content_url, alt: label, className: "inscribed", loading: "lazy" })];
  if (mime === "text/html") {
    const frame = h("iframe", {
      src: inscription.content_url,
      sandbox: "",
      title: `${label}, shown without scripts`,
      className: "inscribed",
      referrerpolicy: "no-referrer",
      loading: "lazy",
    });
    const source = h("pre", { className: "text" }, "Loading the source…");
    const details = h("details", null, h("summary", null, "Show the HTML source as text"), source);
    details.addEventListener(
      "toggle",
      () => {
        bodyText(inscription.content_url).then(
          (text) => (source.textContent = text),
          () => (source.textContent = "The source could not be read."),
        );
      },
      { once: true },
    );
    return [
      h(
        "p",
        { className: "note" },
        "HTML written on the chain is shown in a sandbox: its scripts, forms and links do not run.",
      ),
      frame,
      details,
    ];
  }
  if (mime.startsWith("text/") || TEXT_TYPES.has(mime) || mime === "") {
    if (inscription.body_size > MAX_TEXT_BYTES) return [download(inscription, "This text is too long to show here.")];
    const text = await bodyText(inscription.content_url);
    const shown: HTMLElement[] = [h("pre", { className: "text", tabindex: "0", "aria-label": label }, text)];
    const drc20 = drc20Of(text);
    if (drc20)
      shown.unshift(h("p", null, `A DRC-20 ${drc20.op} of `, link(paths.tick(drc20.tick), drc20.tick, ""), "."));
    return shown;
  }
  return [download(inscription, `Content of type ${inscription.content_type} is not shown in the page.`)];
}

/** The DRC-20 operation a text body spells, if it is one (read as data, never trusted further). */
function drc20Of(text: string): { op: string; tick: string } | null {
  try {
    const json = JSON.parse(text);
    if (
      json &&
      json.p === "drc-20" &&
      typeof json.op === "string" &&
      typeof json.tick === "string" &&
      json.tick.length <= 16
    )
      return { op: json.op, tick: json.tick };
  } catch {
    // not JSON: plain text
  }
  return null;
}

const MOVE_COLUMNS = ["Block", "Transaction", "What happened", "To output", "Owner"];
const MOVE_KIND: Record<string, string> = {
  genesis: "inscribed",
  move: "moved",
  fee: "spent to fees, found in the coinbase",
  lost: "spent to fees, not found",
};

/** The owner history: the moves route's pages in a table that grows by "Show more". */
function ownerHistory(): HTMLElement {
  const caption = h("caption", null, "Moves, oldest first");
  const body = h("tbody");
  const wrap = h(
    "div",
    { className: "table-wrap" },
    h(
      "table",
      null,
      caption,
      h("thead", null, h("tr", null, ...MOVE_COLUMNS.map((c) => h("th", { scope: "col" }, c)))),
      body,
    ),
  );
  const holder = h("div", null, loading("the owner history"));
  const more = h("button", { type: "button", className: "more" }, "Show more");
  let cursor: string | null = null;
  let shown = 0;
  const next = async () => {
    more.setAttribute("disabled", "");
    try {
      const page = await api(
        `/api/explorer/inscription/${id}/moves?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      if (shown === 0 && page.items.length === 0) {
        holder.replaceChildren(empty("No move of this inscription is indexed."));
        return;
      }
      if (shown === 0) holder.replaceChildren(wrap);
      for (const m of page.items)
        body.appendChild(
          tableRow(MOVE_COLUMNS, [
            link(paths.block(m.height), `#${m.height}`, ""),
            link(paths.tx(m.txid), `${m.txid.slice(0, 16)}…`),
            MOVE_KIND[m.kind] ?? m.kind,
            m.to_txid ? link(paths.tx(m.to_txid), `${m.to_txid.slice(0, 16)}…:${m.to_vout}`) : "none",
            m.owner_address
              ? link(paths.address(m.owner_address), m.owner_address)
              : m.to_txid
                ? "a script without an address"
                : "nobody",
          ]),
        );
      shown += page.items.length;
      caption.textContent = `Moves, oldest first: ${shown}`;
      cursor = page.next_cursor;
      if (cursor) {
        more.removeAttribute("disabled");
        if (!more.isConnected) holder.appendChild(more);
      } else more.remove();
    } catch (error) {
      more.remove();
      const shownError = isMissingRoute(error)
        ? empty("The owner history is not available on this explorer yet (its API has no moves route).")
        : errorState(error, "the owner history");
      if (shown === 0) holder.replaceChildren(shownError);
      else holder.appendChild(shownError);
    }
  };
  more.addEventListener("click", () => void next());
  void next();
  return holder;
}

async function render() {
  if (!/^[0-9a-f]{64}i[0-9]+$/.test(id))
    throw new ApiError(
      400,
      "INVALID_INSCRIPTION_ID",
      `${JSON.stringify(id.slice(0, 80))} is not an inscription id (<txid>i<n>)`,
    );
  const inscription = await api(`/api/explorer/inscription/${id}`);
  setTitle(`Inscription #${inscription.number}`);
  const shown = await content(inscription);
  const location = inscription.location;
  return [
    h("h1", null, `Inscription #${inscription.number}`),
    h("p", { className: "subject" }, mono(inscription.id)),
    section("Content", ...shown),
    facts([
      ["ACTION", inscription.action ?? "none (no ACTION field)"],
      ["Content type", inscription.content_type ?? "none"],
      ["Size", count(inscription.body_size, "byte")],
      ["Form", inscription.form],
      ["Envelope hash", inscription.envelope_hash ? mono(inscription.envelope_hash) : null],
      ["Block", link(paths.block(inscription.height), `#${inscription.height}`, "")],
      ["Genesis transaction", link(paths.tx(inscription.genesis_txid), inscription.genesis_txid)],
      [
        "Reveal",
        [
          link(paths.tx(inscription.reveal_txid), inscription.reveal_txid),
          inscription.reveal_tx_count > 1 ? ` (${count(inscription.reveal_tx_count, "transaction")})` : null,
        ],
      ],
    ]),
    section(
      "Owners",
      h(
        "ol",
        { className: "timeline" },
        h(
          "li",
          null,
          `Inscribed at block #${inscription.height} by `,
          inscription.inscriber_address
            ? link(paths.address(inscription.inscriber_address), inscription.inscriber_address)
            : "a script without an address",
          ".",
        ),
        h(
          "li",
          null,
          location
            ? h(
                "span",
                null,
                "Now held by ",
                inscription.owner_address
                  ? link(paths.address(inscription.owner_address), inscription.owner_address)
                  : "a script without an address",
                " on output ",
                link(paths.tx(location.txid), `${location.txid.slice(0, 16)}…:${location.vout}`),
                ` at offset ${location.offset}.`,
              )
            : "Spent to fees: no output holds it any more.",
        ),
      ),
    ),
    section("Owner history", ownerHistory()),
  ];
}

startPage();
void renderMain("the inscription", render);
