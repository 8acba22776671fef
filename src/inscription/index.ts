/** Inscriptions: the v1 envelope, the ACTION registry, Doginals, DRC-20 and launchpad rules (pure, no I/O). */
export * from "./envelope";
export * from "./registry";
export * from "./doginals";
export * from "./drc20";
export * from "./launchpad";
export * from "./ids";
