/** OP_CHECKZKP capture (DIP-69 draft) and the mode-0 Groth16 shadow verifier: pure, no I/O. */
export * from "./extract";
export * from "./groth16";
