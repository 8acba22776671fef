/** The relayer: paid fact requests (fact-requests.ts) and DogeInscriber / DogeAnchor jobs (relayer.ts). */
export * from "./store";
export * from "./l2";
export * from "./scanner";
export * from "./relayer";
export * from "./http";
export * from "./keys";
