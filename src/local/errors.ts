/** A local service could not start; the message says what to change (shown as-is to the user). */
export class LocalServiceError extends Error {
  constructor(
    message: string,
    readonly fix?: string,
  ) {
    super(fix ? `${message}\n  fix: ${fix}` : message);
    this.name = 'LocalServiceError';
  }
}
