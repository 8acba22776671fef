/** The error of the pages' payments (./payment.ts), kept apart so that the provider has it without the PSBT code. */
export class PaymentError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "PaymentError";
  }
}
