/** The OP_RETURN and OP_CHECKZKP records (DESIGN.md section 4) as tables, shared by several pages. */
import { count, h, link, mono, paths, table } from "./lib";

/** An OP_RETURN payload: its text when it is UTF-8 that reads as text, else its hex. */
export function payload(record: { payload_hex: string; payload_utf8: string | null }): HTMLElement {
  // Text with control characters (other than tab and newline) is shown as hex: it would not read.
  const text = record.payload_utf8;
  if (text !== null && text.length > 0 && !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text))
    return h("span", { className: "payload" }, h("span", { className: "badge" }, "text"), " ", h("q", null, text));
  return h(
    "span",
    { className: "payload" },
    h("span", { className: "badge" }, "hex"),
    " ",
    mono(record.payload_hex || "(empty)"),
  );
}

export function opReturnTable(records: any[], options: { showTx: boolean; caption?: string }): HTMLElement {
  const columns = options.showTx
    ? ["Transaction", "Block", "Magic", "Bytes", "Payload"]
    : ["Output", "Magic", "Bytes", "Payload", "SHA-256"];
  const rows = records.map((o) =>
    options.showTx
      ? [
          link(paths.tx(o.txid), `${o.txid.slice(0, 16)}…:${o.vout}`),
          link(paths.block(o.block), `#${o.block}`, ""),
          o.magic ? link(paths.magic(o.magic), o.magic) : "none",
          String(o.bytes),
          payload(o),
        ]
      : [
          String(o.vout),
          o.magic ? link(paths.magic(o.magic), o.magic) : "none",
          String(o.bytes),
          payload(o),
          mono(o.payload_sha256),
        ],
  );
  return table(options.caption ?? count(records.length, "OP_RETURN output"), columns, rows, "records");
}

/** The shadow verifier's verdict in words. */
export function verdict(use: any): HTMLElement {
  if (use.parse_error) return h("span", { className: "badge bad" }, `unparsed: ${use.parse_error}`);
  if (use.shadow_valid === true) return h("span", { className: "badge good" }, "valid proof");
  if (use.shadow_valid === false) return h("span", { className: "badge bad" }, "invalid proof");
  return h("span", { className: "badge" }, use.mode === 0 ? "not verified yet" : "no shadow verifier for this mode");
}

export function zkpTable(uses: any[], options: { showTx: boolean; caption?: string }): HTMLElement {
  const columns = [
    ...(options.showTx ? ["Transaction", "Block"] : []),
    "Where",
    "Mode",
    "Verifying key",
    "Shadow verdict",
  ];
  const rows = uses.map((use) => [
    ...(options.showTx
      ? [
          link(paths.tx(use.txid), `${use.txid.slice(0, 16)}…`),
          link(paths.block(use.block_height), `#${use.block_height}`, ""),
        ]
      : []),
    `${use.role}${use.input_index !== null ? ` ${use.input_index}` : ""}${use.output_index !== null ? ` ${use.output_index}` : ""}, op ${use.op_index}`,
    use.mode_name ?? (use.mode === null ? "none" : `mode ${use.mode}`),
    use.vk_sha256 ? link(paths.vk(use.vk_sha256), `${use.vk_sha256.slice(0, 16)}…`) : "none",
    verdict(use),
  ]);
  return table(options.caption ?? count(uses.length, "OP_CHECKZKP use"), columns, rows, "records");
}
