/**
 * The key an error's text goes under. Most of the API says `message`; a few older routes (x509,
 * DKIM management) answer `{"Reason": ...}` or `{"Description": ...}`, which clients print as is.
 */
export type ErrorField = 'message' | 'Reason' | 'Description';

/** Errors that carry a Mailgun-shaped reply. Anything else thrown becomes a 500. */
export class ApiError extends Error {
  /** Set where the route's usual field is not the one Mailgun uses for this error. */
  field?: ErrorField;

  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The same error under another field (`{"Description": "domain not found"}`). */
  as(field: ErrorField): this {
    this.field = field;
    return this;
  }

  /** The reply's JSON body: Mailgun's `{"message": ...}`. */
  body(): Record<string, unknown> {
    // Where Mailgun answers `Reason` or `Description`, `message` repeats the text for SDKs reading it.
    return this.field && this.field !== 'message' ? { [this.field]: this.message, message: this.message } : { message: this.message };
  }
}

export class BadRequest extends ApiError {
  constructor(message: string) {
    super(400, message);
  }
}

export class Unauthorized extends ApiError {
  constructor(message = 'Invalid private key') {
    super(401, message);
  }
}

export class Forbidden extends ApiError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}

export class NotFound extends ApiError {
  constructor(message = 'Not Found') {
    super(404, message);
  }
}

export class Conflict extends ApiError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLarge extends ApiError {
  constructor(message = 'Request entity too large') {
    super(413, message);
  }
}

/** Too many requests, with the seconds to wait in Retry-After. */
export class TooManyRequests extends ApiError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, { 'retry-after': String(retryAfterSeconds) });
  }
}

/**
 * Mailgun's newer services (x509 certificates, dkim_management ...) answer `{"Reason": ...}` on
 * 400 and 402 and `{"Description": ...}` on 404, 409 and 429 (contract §1.3). `message` repeats
 * the text: mailgun.js shows a refusal's `message` as its details, and the house rule (every
 * refusal carries one) holds.
 */
export class ServiceError extends ApiError {
  constructor(
    status: 400 | 402 | 404 | 409 | 429,
    message: string,
  ) {
    super(status, message);
  }

  override body(): Record<string, unknown> {
    return { [this.status === 400 || this.status === 402 ? 'Reason' : 'Description']: this.message, message: this.message };
  }
}
