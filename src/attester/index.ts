/** The attester: facts and job receipts signed from its own index (docs/architecture.md, "Attesters"). */
export * from "./wire";
export * from "./facts";
export * from "./receipts";
export * from "./l2";
export * from "./key";
export * from "./app";
