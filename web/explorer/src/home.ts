/** The explorer's home (/): the live tip, and the newest OP_RETURN outputs and OP_CHECKZKP uses. */
import {
  IndexStatus,
  api,
  errorState,
  facts,
  fill,
  h,
  link,
  main,
  onTip,
  paths,
  section,
  setTitle,
  startPage,
  empty,
} from "./lib";
import { opReturnTable, zkpTable } from "./records";

const tipFacts = h("div", null, h("p", { className: "state loading", role: "status" }, "Loading the tip…"));
const opReturns = h(
  "div",
  null,
  h("p", { className: "state loading", role: "status" }, "Loading the OP_RETURN outputs…"),
);
const zkp = h("div", null, h("p", { className: "state loading", role: "status" }, "Loading the OP_CHECKZKP uses…"));

function showStatus(status: IndexStatus) {
  fill(
    tipFacts,
    facts([
      [
        "Indexed tip",
        status.indexer.indexed_hash
          ? link(paths.block(status.indexer.indexed_hash), `#${status.indexer.indexed_height}`, "")
          : `#${status.indexer.indexed_height}`,
      ],
      ["Node tip", status.node.height === null ? "not heard from yet" : `#${status.node.height}`],
      ["In step with the node", status.indexer.synced ? "yes" : "no, catching up"],
      ["Network", status.indexer.network ?? "unknown"],
    ]),
  );
}

async function lists() {
  await Promise.all([
    api("/api/explorer/opreturn/recent?limit=5").then(
      (page) =>
        fill(
          opReturns,
          page.items.length
            ? opReturnTable(page.items, { showTx: true, caption: `The ${page.items.length} newest` })
            : empty("No OP_RETURN output indexed yet."),
          link("/opreturn", "All OP_RETURN outputs →", ""),
        ),
      (error) => fill(opReturns, errorState(error, "the OP_RETURN outputs")),
    ),
    api("/api/explorer/zkp/recent?limit=5").then(
      (page) =>
        fill(
          zkp,
          page.items.length
            ? zkpTable(page.items, { showTx: true, caption: `The ${page.items.length} newest` })
            : empty("No OP_CHECKZKP use indexed yet."),
          link("/zkp", "OP_CHECKZKP status and uses →", ""),
        ),
      (error) => fill(zkp, errorState(error, "the OP_CHECKZKP uses")),
    ),
  ]);
}

startPage();
setTitle("Explorer");
fill(
  main(),
  h("h1", null, "DogeOS explorer"),
  h(
    "p",
    null,
    "Search above for a transaction, an address, an inscription or a block. This page follows the chain's tip as it moves.",
  ),
  section("Tip", tipFacts),
  section("OP_RETURN", opReturns),
  section("OP_CHECKZKP", zkp),
);
void lists();
onTip((status, changed) => {
  showStatus(status);
  if (changed) void lists();
});
