/**
 * The OP_RETURN page (/opreturn, ?magic=<hex> for one prefix): the newest OP_RETURN outputs in
 * pages, a filter by magic, and a check whether a document's SHA-256 is anchored.
 */
import {
  ApiError,
  api,
  empty,
  errorState,
  fill,
  h,
  link,
  main,
  paths,
  query,
  section,
  setTitle,
  startPage,
} from "./lib";
import { opReturnTable } from "./records";

const magic = (query("magic") ?? "").trim().toLowerCase();

function filterForm(): HTMLElement {
  return h(
    "form",
    { className: "inline", method: "get", action: "/opreturn" },
    h("label", { for: "magic" }, "Magic (1 to 4 bytes, hex)"),
    h("input", {
      id: "magic",
      name: "magic",
      value: magic,
      pattern: "([0-9a-fA-F]{2}){1,4}",
      spellcheck: "false",
      autocomplete: "off",
    }),
    h("button", { type: "submit" }, "Filter"),
    magic ? link("/opreturn", "Show all", "") : null,
  );
}

function anchorForm(): HTMLElement {
  const result = h("div", { "aria-live": "polite" });
  const input = h("input", {
    id: "sha",
    name: "sha",
    pattern: "[0-9a-fA-F]{64}",
    spellcheck: "false",
    autocomplete: "off",
    required: true,
  }) as HTMLInputElement;
  const form = h(
    "form",
    { className: "inline" },
    h("label", { for: "sha" }, "Document SHA-256"),
    input,
    h("button", { type: "submit" }, "Check"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const sha = input.value.trim().toLowerCase();
    fill(result, h("p", { className: "state loading", role: "status" }, "Checking…"));
    api(`/api/explorer/opreturn/sha256/${encodeURIComponent(sha)}`).then(
      (answer) =>
        fill(
          result,
          answer.anchored
            ? h(
                "p",
                { className: "status ok" },
                "Anchored first in ",
                link(paths.tx(answer.first.txid), `${answer.first.txid.slice(0, 16)}…:${answer.first.vout}`),
                ` at block #${answer.first.block}`,
                answer.matches.length > 1 ? ` (${answer.matches.length} outputs carry it).` : ".",
              )
            : h("p", { className: "state empty" }, "Not anchored: no OP_RETURN payload has this SHA-256."),
        ),
      (error) => fill(result, errorState(error, "the anchor")),
    );
  });
  return h("div", null, form, result);
}

async function run() {
  setTitle(magic ? `OP_RETURN ${magic}` : "OP_RETURN");
  const list = h("div", null, h("p", { className: "state loading", role: "status" }, "Loading the OP_RETURN outputs…"));
  fill(
    main(),
    h("h1", null, magic ? `OP_RETURN outputs starting with ${magic}` : "OP_RETURN outputs"),
    filterForm(),
    section("Newest first", list),
    section("Is a document anchored?", anchorForm()),
  );
  const more = h("button", { type: "button", className: "more" }, "Show more");
  let cursor: string | null = null;
  let shown = 0;
  const next = async () => {
    more.setAttribute("disabled", "");
    try {
      if (magic && !/^([0-9a-f]{2}){1,4}$/.test(magic))
        throw new ApiError(400, "INVALID_MAGIC", "a magic is 1 to 4 bytes in hexadecimal (2 to 8 hex digits)");
      const page = await api(
        `/api/explorer/opreturn/recent?limit=25${magic ? `&magic=${magic}` : ""}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      if (shown === 0) list.replaceChildren();
      if (shown === 0 && page.items.length === 0) {
        list.appendChild(
          empty(magic ? `No OP_RETURN output starts with ${magic}.` : "No OP_RETURN output indexed yet."),
        );
        return;
      }
      shown += page.items.length;
      more.remove();
      list.appendChild(
        opReturnTable(page.items, {
          showTx: true,
          caption: `OP_RETURN outputs ${shown - page.items.length + 1} to ${shown}`,
        }),
      );
      cursor = page.next_cursor;
      if (cursor) {
        more.removeAttribute("disabled");
        list.appendChild(more);
      }
    } catch (error) {
      list.replaceChildren(errorState(error, "the OP_RETURN outputs"));
    }
  };
  more.addEventListener("click", () => void next());
  await next();
}

startPage();
void run();
