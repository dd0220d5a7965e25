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
