// Writes tests/signing-fixture.json: @sml/core's signing functions on fixed inputs, which
// tests/test_signing.py checks the Python port against. Run after a build:
//   node clients/python/scripts/signing-fixture.js
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { contentMd5, formatSymDate, signature, stringToSign } = require('@sml/core');

const secret = 'q83vEjRWeJq83vEjRWeJqw==';
const cases = [
  { method: 'get', resource: '/symetry/rest/c1/projects', customerId: 'c1' },
  { method: 'POST', resource: '/symetry/rest/c1/projects/p1/learn', customerId: 'c1', query: 'async=true', body: '{"attributeNames":["x","é"],"data":[["1","2"]]}' },
  { method: 'DELETE', resource: 'http://localhost:8080/symetry/rest/c%201/projects/p%202', customerId: 'c 1', body: '' },
].map((c, i) => {
  const date = new Date(Date.UTC(2026, 0, 2 + i, 3, 4, 5, 678));
  const symDate = formatSymDate(date, i === 0 ? undefined : 678_123_456 + i);
  const md5 = contentMd5(c.body);
  const message = stringToSign({ ...c, contentMd5: md5, secret, symDate });
  return { ...c, epochMs: date.getTime(), nanos: i === 0 ? null : 678_123_456 + i, symDate, contentMd5: md5, stringToSign: message, signature: signature(secret, message) };
});
writeFileSync(join(__dirname, '../tests/signing-fixture.json'), `${JSON.stringify({ secret, cases }, null, 2)}\n`);
console.log(`${cases.length} cases`);
