/** Dogecoin primitives: pure codecs, no I/O. */
export * from "./bytes";
export * from "./hash";
export * from "./networks";
export * from "./script";
export * from "./tx";
export * from "./block";
export * from "./address";
export * from "./message";
export * from "./sighash";
export * from "./policy";
export * from "./maturity";
