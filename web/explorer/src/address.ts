/**
 * The address page (/address/<address>): balance confirmed and pending, DRC-20 balances, the
 * inscriptions it holds, its unspent outputs and its history, both in pages.
 */
import {
  ApiError,
  api,
  count,
  doge,
  empty,
  errorState,
  facts,
  h,
  link,
  loading,
  mono,
  pathParam,
  paths,
  renderMain,
  section,
  setTitle,
  startPage,
  table,
  tableRow,
} from "./lib";

const address = pathParam("/address/");
const enc = encodeURIComponent(address);

const HISTORY_COLUMNS = ["Transaction", "Direction", "Counterparty", "Amount", "Block"];
const UTXO_COLUMNS = ["Output", "Value", "Confirmations", "Carries", "Spendable"];
const DIRECTION: Record<string, string> = { in: "received", out: "sent", self: "to itself" };

/** A list that grows by pages: `load(cursor)` returns rows and the next cursor. */
function paged(
  caption: string,
  columns: string[],
  load: (cursor: string | null) => Promise<{ rows: any[][]; next: string | null; total?: number }>,
  emptyText: string,
  onRows?: (rows: any[]) => void,
): HTMLElement {
  const body = h("tbody");
  const captionNode = h("caption", null, caption);
  const wrap = h(
    "div",
    { className: "table-wrap" },
    h(
      "table",
      null,
      captionNode,
      h("thead", null, h("tr", null, ...columns.map((c) => h("th", { scope: "col" }, c)))),
      body,
    ),
  );
  const holder = h("div", null, loading(caption.toLowerCase()));
  const more = h("button", { type: "button", className: "more" }, "Show more");
  let cursor: string | null = null;
  let shown = 0;
  const next = async () => {
    more.setAttribute("disabled", "");
    try {
      const page = await load(cursor);
      if (shown === 0 && page.rows.length === 0) {
        holder.replaceChildren(empty(emptyText));
        return;
      }
      if (shown === 0) holder.replaceChildren(wrap);
      for (const row of page.rows) body.appendChild(tableRow(columns, row));
      shown += page.rows.length;
      captionNode.textContent =
        page.total !== undefined ? `${caption}: ${shown} of ${page.total}` : `${caption}: ${shown}`;
      onRows?.(page.rows);
      cursor = page.next;
      if (cursor) {
        more.removeAttribute("disabled");
        if (!more.isConnected) holder.appendChild(more);
      } else more.remove();
    } catch (error) {
      holder.appendChild(errorState(error, caption.toLowerCase()));
      more.remove();
    }
  };
  more.addEventListener("click", () => void next());
  void next();
  return holder;
}

async function render() {
  if (!/^[1-9A-HJ-NP-Za-km-z]{25,40}$/.test(address))
    throw new ApiError(400, "INVALID_ADDRESS", `${JSON.stringify(address.slice(0, 80))} is not a Dogecoin address`);
  const [balance, drc20] = await Promise.all([
    api(`/api/wallet/address/${enc}/balance`),
    api(`/api/wallet/address/${enc}/drc20`),
  ]);
  setTitle(`Address ${address.slice(0, 12)}…`);
  const confirmed = BigInt(balance.confirmed_koinu);
  const pendingChange = BigInt(balance.unconfirmed_koinu);

  const inscriptionsList = h("ul", { className: "cards" });
  const inscriptionsNote = h("p", { className: "state empty" }, "Reading the unspent outputs…");
  const seen = new Set<string>();
  const addInscriptions = (rows: any[]) => {
    for (const row of rows) {
      for (const inscription of (row as any).__inscriptions ?? []) {
        if (seen.has(inscription.id)) continue;
        seen.add(inscription.id);
        inscriptionsList.appendChild(
          h(
            "li",
            null,
            link(paths.inscription(inscription.id), inscription.id),
            h("span", { className: "muted" }, ` ${inscription.content_type ?? "no content type"}`),
          ),
        );
      }
    }
    inscriptionsNote.textContent = seen.size
      ? `${count(seen.size, "inscription")} on the unspent outputs listed below.`
      : "No inscription on the unspent outputs listed below.";
  };

  return [
    h("h1", null, "Address"),
    h("p", { className: "subject" }, mono(address)),
    facts([
      ["Confirmed balance", doge(confirmed)],
      [
        "Pending",
        pendingChange === 0n
          ? "nothing pending"
          : `${pendingChange > 0n ? "+" : ""}${doge(pendingChange)} in the mempool`,
      ],
      ["Balance with pending", doge(confirmed + pendingChange)],
      ["Transactions", String(balance.tx_count)],
    ]),
    section(
      "DRC-20 balances",
      drc20.balances.length
        ? table(
            count(drc20.balances.length, "tick"),
            ["Tick", "Available", "Transferable"],
            drc20.balances.map((b: any) => [link(paths.tick(b.tick), b.tick, ""), b.available, b.transferable]),
          )
        : empty("No DRC-20 balance."),
    ),
    section("Inscriptions held", inscriptionsNote, inscriptionsList),
    section(
      "History",
      paged(
        "Transactions, newest first",
        HISTORY_COLUMNS,
        async (cursor) => {
          const page = await api(
            `/api/wallet/address/${enc}/history?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          );
          return {
            total: page.total,
            next: page.next_cursor,
            rows: page.items.map((item: any) => [
              link(paths.tx(item.txid), `${item.txid.slice(0, 16)}…`),
              h(
                "span",
                null,
                DIRECTION[item.direction] ?? item.direction,
                item.is_doginal ? h("span", { className: "badge" }, "inscription") : null,
              ),
              item.counterparty_address
                ? link(paths.address(item.counterparty_address), item.counterparty_address)
                : "several or none",
              doge(item.amount_koinu),
              item.block_height === null
                ? "pending"
                : link(paths.block(item.block_height), `#${item.block_height}`, ""),
            ]),
          };
        },
        "No transaction has touched this address.",
      ),
    ),
    section(
      "Unspent outputs",
      paged(
        "Unspent outputs, oldest first",
        UTXO_COLUMNS,
        async (cursor) => {
          const page = await api(
            `/api/wallet/address/${enc}/utxos?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          );
          return {
            next: page.next_cursor,
            rows: page.items.map((u: any) => {
              const row: any[] = [
                link(paths.tx(u.txid), `${u.txid.slice(0, 16)}…:${u.vout}`),
                doge(u.value_koinu),
                u.confirmations === 0 ? "pending" : String(u.confirmations),
                u.carrier === "drc20"
                  ? `DRC-20 ${u.drc20.map((d: any) => `${d.amount} ${d.tick}`).join(", ")}`
                  : u.carrier === "inscription"
                    ? count(u.inscriptions.length, "inscription")
                    : "DOGE only",
                u.spendable
                  ? "yes"
                  : u.spent_in_mempool
                    ? "spending in the mempool"
                    : u.mature
                      ? "no"
                      : "not mature (coinbase)",
              ];
              (row as any).__inscriptions = u.inscriptions;
              return row;
            }),
          };
        },
        "No unspent output.",
        addInscriptions,
      ),
    ),
  ];
}

startPage();
void renderMain("the address", render);
