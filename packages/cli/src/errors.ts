/** A failure the user can act on (bad argument, unreadable file, unreachable server): printed as one line. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

interface ErrorLike {
  name: string;
  message: string;
  cause?: unknown;
}

// Duck-typed rather than instanceof: errors from Node's own realm are not instances of the
// caller's Error when the CLI runs inside a jest vm context.
const isErrorLike = (err: unknown): err is ErrorLike => typeof err === 'object' && err !== null && typeof (err as ErrorLike).message === 'string';

/**
 * The one line printed for an error that no response envelope describes. A gateway that
 * cannot be reached (the SDK's GatewayUnreachableError) names SML_URL and the network cause
 * (ECONNREFUSED, ENOTFOUND …).
 */
export function describeError(err: unknown): string {
  if (!isErrorLike(err)) return String(err);
  if (err.name === 'GatewayUnreachableError' && isErrorLike(err.cause)) {
    return `cannot reach the gateway (SML_URL): ${err.cause.message}`;
  }
  return err.message;
}
