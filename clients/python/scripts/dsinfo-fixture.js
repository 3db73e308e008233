// Writes tests/dsinfo-fixture.json: @sml/core's DSInfo encryption (the functions the gateway
// decrypts with) on fixed inputs, which tests/test_dsinfo.py checks the Python port against:
// v1 is deterministic (fixed IV), so Python must produce the same text; v2 has a random nonce,
// so Python must decrypt it (and @sml/core must decrypt what Python writes: the system test).
// Run after a build:   node clients/python/scripts/dsinfo-fixture.js
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { decryptDsInfo, encryptDsInfo } = require('@sml/core');

const secret = 'q83vEjRWeJq83vEjRWeJqw==';
const dsinfos = [
  { type: 'localfile', name: 'houses', info: { path: 'data/houses.csv' }, extra: ['C', 'C', 'T'] },
  // Non-ASCII, quotes and a body longer than one AES block, in both formats.
  { type: 's3', name: 'x', info: { path: 'a/b é "q".csv', s3bucket: 'bkt', s3accessKey: 'AK', s3secretKey: 'sk/+=' }, extra: [] },
];
const cases = dsinfos.map((dsinfo) => {
  const v1 = encryptDsInfo(dsinfo, secret, { format: 'v1' });
  const v2 = encryptDsInfo(dsinfo, secret, { format: 'v2' });
  // The fixture is only worth committing if @sml/core reads back what it wrote.
  for (const body of [v1, v2]) if (JSON.stringify(decryptDsInfo(body, secret)) !== JSON.stringify(dsinfo)) throw new Error('round trip');
  return { dsinfo, v1, v2 };
});
writeFileSync(join(__dirname, '../tests/dsinfo-fixture.json'), `${JSON.stringify({ secret, cases }, null, 2)}\n`);
console.log(`${cases.length} cases`);
