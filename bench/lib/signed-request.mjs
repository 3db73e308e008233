// An autocannon `setupRequest` hook that signs every request afresh (API.md §2): the gateway
// refuses a signature it has already seen, so a request buffer cannot be reused.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { contentMd5, formatSymDate, signature, stringToSign } = require('../../packages/core/dist/index.js');

/**
 * `GET path` signed as `user`. A counter fills the sub-millisecond digits of Sym-date so
 * that two requests of the same millisecond never sign identically.
 */
export function signedGet({ path, user, secret }) {
  let counter = 0;
  const md5 = contentMd5(undefined);
  return (req) => {
    const now = new Date();
    counter = (counter + 1) % 1_000_000;
    const symDate = formatSymDate(now, now.getUTCMilliseconds() * 1_000_000 + counter);
    const toSign = stringToSign({ method: 'GET', contentMd5: md5, secret, symDate, customerId: user, resource: path });
    return {
      ...req,
      method: 'GET',
      path,
      headers: {
        ...req.headers,
        'customer-id': user,
        'sym-date': symDate,
        'content-md5': md5,
        'sym-version': '1',
        authorization: signature(secret, toSign),
      },
    };
  };
}
