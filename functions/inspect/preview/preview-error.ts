import { ApiError } from '../../platform/errors';

/**
 * The preview family's errors (inspect contract §0): Email on Acid's `{"error": {"name", "message"}}`
 * with its names (NoSubject, InvalidTestID, ClientNotFound ...), `Reason` beside it as Mailgun's
 * preview pages document for 400 and 401, and `message` for every client that reads only that.
 */
export class PreviewError extends ApiError {
  constructor(
    status: 400 | 404 | 409 | 413 | 425,
    readonly errorName: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(status, message, headers);
  }

  override body(): Record<string, unknown> {
    return { error: { name: this.errorName, message: this.message }, Reason: this.message, message: this.message };
  }
}

export const testNotFound = (id: string) => new PreviewError(404, 'InvalidTestID', `No preview test with id ${id}`);
