// Bus credentials for a deployment (README "Bus security"):
//
//   node scripts/nats-auth.mjs <dir> [--rotate <identity>[,<identity>…]]
//
// writes, in <dir> (mode 0700, files 0600): one `<identity>.env` per bus identity
// (SML_NATS_USER / SML_NATS_PASSWORD, random passwords generated once and kept), and
// `auth.conf`, the nats-server `authorization` block with their bcrypt hashes and the subject
// permissions of packages/bus/src/permissions.ts. deploy/k8s turns them into one Secret per
// service plus the `nats-auth` Secret the NATS servers include (`kubectl apply -k
// deploy/k8s/overlays/<local|prod>` after `node scripts/nats-auth.mjs deploy/k8s/base/secrets`).
// Needs a build (packages/bus/dist).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { BUS_IDENTITIES, busAuthorizationConf, ensureBusCredentials } = createRequire(import.meta.url)(join(root, 'packages/bus/dist/index.js'));

const args = process.argv.slice(2);
const at = args.indexOf('--rotate');
const rotate = at >= 0 ? (args.splice(at, 2)[1] ?? '').split(',').filter(Boolean) : [];
const dir = args[0];
if (!dir || args.length !== 1 || rotate.some((id) => !BUS_IDENTITIES.includes(id))) {
  console.error(`usage: node scripts/nats-auth.mjs <dir> [--rotate <identity>[,…]]   identities: ${BUS_IDENTITIES.join(', ')}`);
  process.exit(2);
}
const creds = ensureBusCredentials(resolve(dir), { rotate });
writeFileSync(join(resolve(dir), 'auth.conf'), busAuthorizationConf(creds), { mode: 0o600 });
console.log(`bus credentials in ${resolve(dir)}: ${BUS_IDENTITIES.map((id) => `${id}.env`).join(' ')} auth.conf${rotate.length ? ` (rotated: ${rotate.join(', ')})` : ''}`);
