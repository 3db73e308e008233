/** The gateway answered with something other than a JSON envelope (API.md §1). */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';
  constructor(
    message: string,
    readonly status: number,
    readonly text: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No HTTP exchange took place: the gateway could not be reached (connection refused, unknown host, reset …). */
export class GatewayUnreachableError extends Error {
  override readonly name = 'GatewayUnreachableError';
  constructor(readonly url: string, cause: Error) {
    super(`cannot reach ${url}: ${cause.message}`, { cause });
  }
}

/** An answer's body was longer than the client's `maxAnswerBytes`: the connection was closed unread. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
  constructor(readonly url: string, readonly maxBytes: number) {
    super(`the answer of ${url} is longer than ${maxBytes} bytes`);
  }
}

/** A job was still running (202) when `waitForJob` gave up. */
export class JobTimeoutError extends Error {
  override readonly name = 'JobTimeoutError';
  constructor(readonly jobId: string, readonly timeoutMs: number) {
    super(`Job ${jobId} still running after ${timeoutMs} ms`);
  }
}

/** A call did not finish within its `timeoutMs` (retries and their waits included). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  constructor(readonly method: string, readonly path: string, readonly timeoutMs: number) {
    super(`${method} ${path} did not finish within ${timeoutMs} ms`);
  }
}
