import { createServer } from 'node:net';

/**
 * A loopback TCP port that was free a moment ago. Another process may take it before the
 * caller binds it, so starters that use it retry on "address in use".
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('loopback listener has no TCP port');
  return address.port;
}
