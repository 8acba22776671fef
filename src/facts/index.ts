/** Facts about the base chain: type and subject keys, the EIP-712 domain and types, builders and rules (pure, no I/O). */
export * from "./keys";
export * from "./eip712";
export * from "./build";
export * from "./rules";
export * from "./digest";
