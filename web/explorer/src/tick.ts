/**
 * The DRC-20 tick page (/drc20/<tick>): supply, mint limit, minted, deployer and holders, read from
 * GET /api/explorer/drc20/<tick>. When this explorer serves no such route the page says so.
 */
import {
  ApiError,
  api,
  count,
  facts,
  h,
  isMissingRoute,
  link,
  pathParam,
  paths,
  renderMain,
  section,
  setTitle,
  startPage,
  table,
  empty,
} from "./lib";

const tick = pathParam("/drc20/");

async function render() {
  if (!/^\S{1,16}$/.test(tick))
    throw new ApiError(400, "INVALID_TICK", `${JSON.stringify(tick.slice(0, 80))} is not a DRC-20 tick`);
  let info: any;
  try {
    info = await api(`/api/explorer/drc20/${encodeURIComponent(tick)}`);
  } catch (error) {
    if (isMissingRoute(error))
      throw new ApiError(
        501,
        "TICKS_NOT_AVAILABLE",
        "DRC-20 tick totals are not available on this explorer yet (its API has no tick route); an address page shows the DRC-20 balances it holds",
      );
    throw error;
  }
  setTitle(`DRC-20 ${info.tick}`);
  return [
    h("h1", null, `DRC-20 ${info.tick}`),
    facts([
      ["Max supply", info.max_supply],
      ["Minted", info.minted],
      ["Mint limit", info.mint_limit],
      ["Holders", String(info.holder_count)],
      ["Deployed by", link(paths.address(info.deployer_address), info.deployer_address)],
      ["Deploy inscription", link(paths.inscription(info.inscription_id), info.inscription_id)],
      ["Deployed at block", link(paths.block(info.height), `#${info.height}`, "")],
    ]),
    section(
      "Holders",
      info.holders.length
        ? table(
            `The ${count(info.holders.length, "largest holder")}`,
            ["Address", "Available", "Transferable"],
            info.holders.map((holder: any) => [
              link(paths.address(holder.address), holder.address),
              holder.available,
              holder.transferable,
            ]),
          )
        : empty("Nobody holds this tick yet."),
    ),
  ];
}

startPage();
void renderMain("the DRC-20 tick", render);
