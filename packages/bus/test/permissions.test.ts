import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import bcrypt from 'bcryptjs';
import { BUS_IDENTITIES, BUS_RIGHTS, busAuthorizationConf, ensureBusCredentials, natsAuthorizationConf, natsPermissions, readBusCredentials, type BusIdentity } from '@sml/bus';

const root = resolve(__dirname, '../../..');

/** The sources of a package, concatenated. */
function sources(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.ts')) out.push(readFileSync(join(d, e.name), 'utf8'));
    }
  };
  walk(dir);
  return out.join('\n');
}

// A JetStream resource a service opens but its identity may not reach fails only at run time
// (a permissions violation in the service's log): catch it here, from the source.
describe('bus permissions cover what each service opens', () => {
  const constants = new Map<string, string>();
  for (const dir of ['packages/bus/src', 'services/jobs/src', 'services/projects/src']) {
    for (const m of sources(join(root, dir)).matchAll(/export const ([A-Z_]+) = '([^']+)'/g)) constants.set(m[1], m[2]);
  }
  const cases: Array<[string, BusIdentity]> = [['services/gateway/src', 'gateway'], ['services/jobs/src', 'jobs'], ['services/projects/src', 'projects'], ['services/explore/src', 'explore'], ['services/encoders/src', 'encoders'], ['services/streams/src', 'streams'], ['services/federation/src', 'federation']];

  it.each(cases)('%s → %s', (dir, identity) => {
    const src = sources(join(root, dir));
    const rights = BUS_RIGHTS[identity];
    for (const m of src.matchAll(/kvBucket\(\s*nc,\s*'([^']+)'/g)) expect(rights.kv ?? []).toContain(m[1]);
    for (const m of src.matchAll(/objectStore\(\s*nc,\s*'([^']+)'/g)) expect(rights.objectStores ?? []).toContain(m[1]);
    for (const m of src.matchAll(/ensureStream\(\s*nc,\s*\{\s*name:\s*([A-Z_]+|'[^']+')/g)) {
      const name = m[1].startsWith("'") ? m[1].slice(1, -1) : constants.get(m[1]);
      expect(rights.streams ?? []).toContain(name);
    }
    // Services that run jobs publish their events and take their own cancel notices.
    if (/new JobRunner\(/.test(src)) {
      expect(rights.publish).toEqual(expect.arrayContaining(['sml.jobs.create', 'sml.events.job.>']));
      expect(rights.subscribe).toContain(`sml.jobcancel.${rights.service}`);
    }
  });

  it('every identity that may publish a large message can use the spill bucket; admin reaches no JetStream at all', () => {
    for (const id of ['gateway', 'jobs', 'projects', 'explore', 'encoders', 'streams'] as const) expect(BUS_RIGHTS[id].objectStores).toContain('sml_bus_spill');
    expect(natsPermissions('admin')).toEqual({ publish: ['sml.users.>'], subscribe: ['_INBOX.admin.>'] });
  });

  it('only the gateway and admin may publish sml.users.*; only the gateway sends to projects beyond summary/info', () => {
    const publishers = (subject: string) => Object.keys(BUS_RIGHTS).filter((id) => natsPermissions(id as BusIdentity).publish.some((p) => p === subject || p === 'sml.users.>' && subject.startsWith('sml.users.')));
    expect(publishers('sml.users.add').sort()).toEqual(['admin', 'gateway']);
    expect(Object.keys(BUS_RIGHTS).filter((id) => natsPermissions(id as BusIdentity).publish.includes('sml.projects.>'))).toEqual(['gateway']);
    // Replies: only to one's own inbox prefix; nobody may subscribe to every inbox.
    for (const id of Object.keys(BUS_RIGHTS) as BusIdentity[]) {
      const sub = natsPermissions(id).subscribe;
      expect(sub).toContain(`_INBOX.${id}.>`);
      expect(sub.filter((s) => s.startsWith('_INBOX') && s !== `_INBOX.${id}.>`)).toEqual([]);
      expect(natsPermissions(id).publish.filter((s) => s.startsWith('_INBOX') || s === '>' || s === '$JS.API.>')).toEqual([]);
    }
  });

  it('renders a nats.conf authorization block with responses allowed and no user left out', () => {
    const conf = natsAuthorizationConf({ gateway: 'pw-g', admin: 'pw-a' });
    expect(conf).toMatch(/^authorization \{/m);
    expect(conf.match(/user: /g)).toHaveLength(2);
    expect(conf).toContain('allow_responses: { max: 1, expires: "1h" }');
  });
});

describe('bus credentials files', () => {
  it('generates a password per identity once, keeps it, and rotates only what is asked', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sml-creds-'));
    try {
      const first = ensureBusCredentials(dir);
      expect(Object.keys(first).sort()).toEqual([...BUS_IDENTITIES].sort());
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      for (const id of BUS_IDENTITIES) {
        expect(first[id].user).toBe(id);
        expect(first[id].password).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(statSync(join(dir, `${id}.env`)).mode & 0o777).toBe(0o600);
      }
      expect(ensureBusCredentials(dir)).toEqual(first);
      const rotated = ensureBusCredentials(dir, { rotate: ['explore'] });
      expect(rotated.explore.password).not.toBe(first.explore.password);
      expect({ ...rotated, explore: first.explore }).toEqual(first);
      expect(readBusCredentials(dir, 'explore')).toEqual(rotated.explore);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the authorization block holds bcrypt hashes of the passwords, never the passwords', () => {
    const creds = { gateway: { user: 'gateway', password: 'pw-gateway-123' }, admin: { user: 'admin', password: 'pw-admin-456' } };
    const conf = busAuthorizationConf(creds, { cost: 4 });
    expect(conf).not.toContain('pw-gateway-123');
    const hash = /user: "gateway"\n\s*password: "([^"]+)"/.exec(conf)![1];
    expect(bcrypt.compareSync('pw-gateway-123', hash)).toBe(true);
    expect(() => busAuthorizationConf({ explore: { user: 'gateway', password: 'x' } })).toThrow(/must connect as NATS user explore/);
  });
});
