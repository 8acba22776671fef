/**
 * The OP_CHECKZKP page (/zkp: the capture status and the newest uses; /zkp/vk/<sha256>: every use
 * of one verifying key, in pages), with the shadow verifier's verdicts.
 */
import {
  ApiError,
  api,
  count,
  empty,
  errorState,
  facts,
  h,
  main,
  fill,
  mono,
  pathParam,
  section,
  setTitle,
  startPage,
} from "./lib";
import { zkpTable } from "./records";

const vk = location.pathname.startsWith("/zkp/vk/") ? pathParam("/zkp/vk/") : null;

async function statusSection(): Promise<HTMLElement> {
  const s = await api("/api/explorer/zkp/status");
  return section(
    "Status",
    h(
      "p",
      { className: "note" },
      `${s.proposal}: ${s.status}. Verdicts come from a shadow verifier; nodes do not enforce them.`,
    ),
    facts([
      ["Opcode", `${s.opcode.name} (${s.opcode.byte}, in place of ${s.opcode.replaces})`],
      ["Uses seen", String(s.event_count)],
      ["Shadow verdicts", `${s.verifier.valid} valid, ${s.verifier.invalid} invalid, ${s.verifier.pending} waiting`],
      [
        "Modes",
        s.modes.map((m: any) => `${m.mode}: ${m.name}${m.shadow_verifier ? "" : " (no shadow verifier)"}`).join("; "),
      ],
      ["Captured since block", `#${s.indexing.capture_start_height}`],
    ]),
  );
}

async function run() {
  const region = main();
  setTitle(vk ? "OP_CHECKZKP verifying key" : "OP_CHECKZKP");
  const list = h("div", null, h("p", { className: "state loading", role: "status" }, "Loading the OP_CHECKZKP uses…"));
  const status = h("div", null);
  fill(
    region,
    h("h1", null, vk ? "OP_CHECKZKP uses of a verifying key" : "OP_CHECKZKP"),
    vk ? h("p", { className: "subject" }, mono(vk)) : null,
    status,
    section(vk ? "Uses, newest first" : "Newest uses", list),
  );
  if (!vk)
    statusSection().then(
      (s) => status.replaceChildren(s),
      (error) => status.replaceChildren(errorState(error, "the OP_CHECKZKP status")),
    );
  const more = h("button", { type: "button", className: "more" }, "Show more");
  let cursor: string | null = null;
  let shown = 0;
  const next = async () => {
    more.setAttribute("disabled", "");
    try {
      let items: any[];
      if (vk) {
        if (!/^[0-9a-f]{64}$/.test(vk))
          throw new ApiError(400, "INVALID_SHA256", "a verifying key is named by its SHA-256 (64 hex digits)");
        const page = await api(
          `/api/explorer/zkp/vk/${vk}?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        items = page.items;
        cursor = page.next_cursor;
      } else {
        items = (await api("/api/explorer/zkp/recent?limit=25")).items;
        cursor = null;
      }
      if (shown === 0) list.replaceChildren();
      if (shown === 0 && items.length === 0) {
        list.appendChild(empty("No OP_CHECKZKP use indexed yet."));
        return;
      }
      shown += items.length;
      more.remove();
      list.appendChild(zkpTable(items, { showTx: true, caption: count(items.length, "use") }));
      if (cursor) {
        more.removeAttribute("disabled");
        list.appendChild(more);
      }
    } catch (error) {
      list.replaceChildren(errorState(error, "the OP_CHECKZKP uses"));
    }
  };
  more.addEventListener("click", () => void next());
  await next();
}

startPage();
void run();
