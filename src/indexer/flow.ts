/**
 * Where inscribed koinu go when a transaction spends them (DESIGN.md 4.2, as ord does it): the
 * inputs' koinu are laid end to end in input order, the outputs take them first-in-first-out, and
 * whatever is left over is the fee, which the block's coinbase collects after the subsidy in the
 * order of the transactions. Pure.
 */

export interface InscriptionOnInput {
  id: string;
  /** Koinu offset inside the spent output. */
  offset: bigint;
}

export interface FlowInput {
  value: bigint;
  inscriptions: readonly InscriptionOnInput[];
}

export interface FlowResult {
  /** Inscriptions landing in an output of this transaction. */
  toOutputs: { id: string; vout: number; offset: bigint }[];
  /** Inscriptions paid as fee: offset inside this transaction's fee. */
  toFee: { id: string; feeOffset: bigint }[];
}

/**
 * Moves inscriptions through a transaction. `created` are new inscriptions, each on the first
 * koinu of the input that revealed it (for a reveal spending its commit as input 0, that is
 * absolute offset 0, hence output 0 offset 0).
 */
export function flowThrough(
  inputs: readonly FlowInput[],
  outputValues: readonly bigint[],
  created: readonly { id: string; inputIndex: number }[] = [],
): FlowResult {
  const placed: { id: string; absolute: bigint }[] = [];
  let base = 0n;
  inputs.forEach((input, index) => {
    for (const creation of created) if (creation.inputIndex === index) placed.push({ id: creation.id, absolute: base });
    for (const inscription of input.inscriptions) {
      // An offset beyond the output's value cannot happen on a consistent index; clamp defensively.
      const offset = inscription.offset < input.value ? inscription.offset : input.value > 0n ? input.value - 1n : 0n;
      placed.push({ id: inscription.id, absolute: base + offset });
    }
    base += input.value;
  });
  const result: FlowResult = { toOutputs: [], toFee: [] };
  const ends: bigint[] = [];
  let running = 0n;
  for (const value of outputValues) {
    running += value;
    ends.push(running);
  }
  for (const { id, absolute } of placed) {
    const vout = ends.findIndex((end, i) => absolute < end && outputValues[i] > 0n);
    if (vout === -1 || absolute >= running) {
      result.toFee.push({ id, feeOffset: absolute - running });
    } else {
      const start = ends[vout] - outputValues[vout];
      result.toOutputs.push({ id, vout, offset: absolute - start });
    }
  }
  return result;
}

/**
 * Places fee-bound inscriptions into the coinbase: the coinbase's koinu are the subsidy followed
 * by each transaction's fee in block order. `feeBase` is the total fee of the block's earlier
 * transactions.
 */
export function flowIntoCoinbase(
  subsidy: bigint,
  feeBase: bigint,
  feeOffset: bigint,
  coinbaseOutputValues: readonly bigint[],
): { vout: number; offset: bigint } | null {
  const absolute = subsidy + feeBase + feeOffset;
  let start = 0n;
  for (let vout = 0; vout < coinbaseOutputValues.length; vout++) {
    const value = coinbaseOutputValues[vout];
    if (absolute < start + value) return { vout, offset: absolute - start };
    start += value;
  }
  // The miner claimed less than subsidy + fees: those koinu are destroyed (ord calls them lost).
  return null;
}
