/**
 * Static checks of deploy/ (kubectl is not available here): every manifest parses, the
 * kustomization and the directory agree, every Deployment is probed and reachable through
 * a Service, and the NATS cluster and config are what ARCHITECTURE.md §2–3 asks for.
 * NATS configs are validated by the real `nats-server -t`, with the bus users that
 * scripts/nats-auth.mjs generates (the Secrets of the kustomization).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { natsServerBinary, repoRoot } from '@sml/testkit';

const deployDir = resolve(__dirname, '../../../deploy');
// The base of the overlays (deploy-overlays.int.test.ts renders and validates those).
const k8sDir = join(deployDir, 'k8s/base');
const SERVICES = ['gateway', 'jobs', 'projects', 'explore', 'encoders', 'streams', 'federation'];
/** Bus identities (packages/bus/src/permissions.ts): one per service, plus `admin` for the CLI. */
const IDENTITIES = [...SERVICES, 'admin'];

// What an operator generates before `kubectl apply -k` (README "Bus security").
const secretsDir = mkdtempSync(join(tmpdir(), 'sml-nats-auth-'));
const generated = spawnSync(process.execPath, [join(repoRoot(), 'scripts/nats-auth.mjs'), secretsDir], { encoding: 'utf8' });
afterAll(() => rmSync(secretsDir, { recursive: true, force: true }));
const secretFile = (name: string) => readFileSync(join(secretsDir, name), 'utf8');

// Manifests are untyped YAML; the tests below check the fields they rely on.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary YAML, read by path
type Manifest = Record<string, any>;

const yamlFiles = readdirSync(k8sDir).filter((f) => /\.ya?ml$/.test(f)).sort();
const parsed = new Map(yamlFiles.map((file) => [file, parseAllDocuments(readFileSync(join(k8sDir, file), 'utf8'))]));
const manifests: Manifest[] = yamlFiles.filter((f) => f !== 'kustomization.yaml')
  .flatMap((f) => parsed.get(f)!.map((doc) => doc.toJS() as Manifest).filter(Boolean));
const kustomization = parsed.get('kustomization.yaml')![0].toJS() as Manifest;
const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
const named = (kind: string, name: string) => ofKind(kind).find((m) => m.metadata.name === name);
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

/** `nats-server -t` on `conf`, with `files` (paths relative to the config's directory) beside it. */
function natsServerAccepts(conf: string, env: Record<string, string> = {}, files: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sml-nats-conf-'));
  try {
    mkdirSync(join(dir, 'conf'));
    writeFileSync(join(dir, 'conf', 'nats.conf'), conf);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, 'conf', path)), { recursive: true });
      writeFileSync(join(dir, 'conf', path), content);
    }
    return spawnSync(natsServerBinary(), ['-c', join(dir, 'conf', 'nats.conf'), '-t'], { encoding: 'utf8', env: { ...process.env, ...env } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('deploy/k8s manifests', () => {
  it.each(yamlFiles)('%s parses, and every document names its apiVersion, kind and name', (file) => {
    for (const doc of parsed.get(file)!) {
      expect(doc.errors).toEqual([]);
      expect(doc.toJS()).toMatchObject({ apiVersion: expect.any(String), kind: expect.any(String) });
    }
    if (file !== 'kustomization.yaml') for (const doc of parsed.get(file)!) expect(doc.toJS().metadata.name).toEqual(expect.any(String));
  });

  it('the kustomization lists exactly the manifests in the directory', () => {
    const kustomization = parsed.get('kustomization.yaml')![0].toJS() as Manifest;
    expect(kustomization.kind).toBe('Kustomization');
    expect([...kustomization.resources].sort()).toEqual(yamlFiles.filter((f) => f !== 'kustomization.yaml'));
  });

  it('deploys every service', () => {
    expect(ofKind('Deployment').map((d) => d.metadata.name).sort()).toEqual([...SERVICES].sort());
  });

  describe.each(SERVICES)('Deployment %s', (name) => {
    const deployment = named('Deployment', name)!;
    const pod = deployment?.spec.template;
    const container = pod?.spec.containers[0];
    const portNames = new Set<string | number>((container?.ports ?? []).flatMap((p: Manifest) => [p.name, p.containerPort]));

    it('selects its own pods', () => {
      expect(matches(deployment.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    });

    it('probes /livez and /readyz on a declared port (gateway 8080, others 9090)', () => {
      const port = name === 'gateway' ? 8080 : 9090;
      expect(container.livenessProbe.httpGet.path).toBe('/livez');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      for (const probe of [container.livenessProbe, container.readinessProbe]) {
        expect(portNames.has(probe.httpGet.port)).toBe(true);
        const declared = container.ports.find((p: Manifest) => p.name === probe.httpGet.port || p.containerPort === probe.httpGet.port);
        expect(declared.containerPort).toBe(port);
      }
    });

    it('has a Service that selects its pods and targets a declared port', () => {
      const service = ofKind('Service').find((s) => s.metadata.name === name);
      expect(service).toBeDefined();
      expect(matches(service!.spec.selector, pod.metadata.labels)).toBe(true);
      for (const p of service!.spec.ports) expect(portNames.has(p.targetPort)).toBe(true);
    });

    it('connects to every NATS server (R3), with resource requests and limits, as non-root', () => {
      expect(container.env).toContainEqual({ name: 'NATS_URL', value: [0, 1, 2].map((i) => `nats://nats-${i}.nats-headless:4222`).join(',') });
      expect(container.env).toContainEqual({ name: 'SML_JETSTREAM_REPLICAS', value: '3' });
      for (const r of ['cpu', 'memory']) {
        expect(container.resources.requests[r]).toBeDefined();
        expect(container.resources.limits[r]).toBeDefined();
      }
      expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
    });

    it('connects as its own bus identity: SML_NATS_USER / SML_NATS_PASSWORD from its Secret sml-nats-<service>', () => {
      expect(container.envFrom).toContainEqual({ secretRef: { name: `sml-nats-${name}` } });
      expect(JSON.stringify(pod).match(/sml-nats-\w+/g)).toEqual([`sml-nats-${name}`]); // and no other identity's
      const envNames = (container.env ?? []).map((e: Manifest) => e.name);
      expect(envNames).not.toContain('SML_NATS_USER');
      expect(envNames).not.toContain('SML_NATS_PASSWORD');
      const generator = kustomization.secretGenerator.find((g: Manifest) => g.name === `sml-nats-${name}`);
      expect(generator.envs).toEqual([`secrets/${name}.env`]);
      expect(secretFile(`${name}.env`)).toMatch(new RegExp(`^SML_NATS_USER=${name}\nSML_NATS_PASSWORD=[A-Za-z0-9_-]{43}\n$`));
    });
  });

  describe('bus credentials (Secrets)', () => {
    it('scripts/nats-auth.mjs generates every file the secretGenerator reads, and git ignores them', () => {
      expect(generated.stderr).toBe('');
      expect(generated.status).toBe(0);
      const names = kustomization.secretGenerator.map((g: Manifest) => g.name).sort();
      expect(names).toEqual([...IDENTITIES.map((id) => `sml-nats-${id}`), 'nats-auth'].sort());
      const files = kustomization.secretGenerator.flatMap((g: Manifest) => [...(g.envs ?? []), ...(g.files ?? [])]);
      expect(files.map((f: string) => posix.dirname(f))).toEqual(files.map(() => 'secrets'));
      expect(files.map((f: string) => posix.basename(f)).sort()).toEqual(readdirSync(secretsDir).sort());
      expect(readFileSync(join(repoRoot(), '.gitignore'), 'utf8')).toMatch(/^deploy\/k8s\/base\/secrets\/$/m);
    });

    it('auth.conf has one user per identity with a bcrypt hash, never a password', () => {
      const auth = secretFile('auth.conf');
      for (const id of IDENTITIES) {
        expect(auth).toContain(`user: "${id}"`);
        const password = /SML_NATS_PASSWORD=(.*)/.exec(secretFile(`${id}.env`))![1];
        expect(auth).not.toContain(password);
      }
      expect(auth.match(/password: "\$2[aby]\$11\$/g)).toHaveLength(IDENTITIES.length);
    });
  });

  describe('NATS', () => {
    const sts = named('StatefulSet', 'nats')!;
    const conf: string = named('ConfigMap', 'nats-config')!.data['nats.conf'];
    const container = sts.spec.template.spec.containers[0];

    it('runs 3 JetStream servers with a persistent volume per server', () => {
      expect(sts.spec.replicas).toBe(3);
      const claims = sts.spec.volumeClaimTemplates.map((c: Manifest) => c.metadata.name);
      const storeDir = /store_dir:\s*"?([^\s"]+)/.exec(conf)![1];
      const storeMount = container.volumeMounts.find((m: Manifest) => m.mountPath === storeDir);
      expect(claims).toContain(storeMount?.name);
    });

    it('is governed by a headless Service that publishes not-ready pods', () => {
      const headless = named('Service', sts.spec.serviceName)!;
      expect(headless.spec.clusterIP).toBe('None');
      expect(headless.spec.publishNotReadyAddresses).toBe(true);
      expect(matches(headless.spec.selector, sts.spec.template.metadata.labels)).toBe(true);
    });

    it('routes to every replica by its stable DNS name', () => {
      for (let i = 0; i < sts.spec.replicas; i++) expect(conf).toContain(`nats://${sts.metadata.name}-${i}.${sts.spec.serviceName}:6222`);
    });

    it('is reachable by clients as nats:4222', () => {
      const client = named('Service', 'nats')!;
      expect(matches(client.spec.selector, sts.spec.template.metadata.labels)).toBe(true);
      expect(client.spec.ports).toContainEqual(expect.objectContaining({ port: 4222 }));
    });

    it('mounts the ConfigMap where the server reads its config', () => {
      const configVolume = sts.spec.template.spec.volumes.find((v: Manifest) => v.configMap?.name === 'nats-config');
      const mount = container.volumeMounts.find((m: Manifest) => m.name === configVolume.name);
      expect(container.args.join(' ')).toContain(`${mount.mountPath}/nats.conf`);
    });

    it('includes the bus users from the Secret nats-auth, mounted where the include points', () => {
      const include = /^\s*include\s+"([^"]+)"/m.exec(conf)![1];
      const configMount = container.volumeMounts.find((m: Manifest) => m.name === sts.spec.template.spec.volumes.find((v: Manifest) => v.configMap?.name === 'nats-config').name).mountPath;
      const authVolume = sts.spec.template.spec.volumes.find((v: Manifest) => v.secret?.secretName === 'nats-auth');
      const authMount = container.volumeMounts.find((m: Manifest) => m.name === authVolume.name);
      expect(posix.join(configMount, include)).toBe(posix.join(authMount.mountPath, 'auth.conf'));
      expect(kustomization.secretGenerator.find((g: Manifest) => g.name === 'nats-auth').files).toEqual(['secrets/auth.conf']);
    });

    it('only NATS pods may reach the (unauthenticated) cluster route port', () => {
      const policy = named('NetworkPolicy', 'nats-routes')!;
      expect(matches(policy.spec.podSelector.matchLabels, sts.spec.template.metadata.labels)).toBe(true);
      for (const rule of policy.spec.ingress) {
        if (rule.ports.some((p: Manifest) => p.port === 6222)) expect(matches(rule.from[0].podSelector.matchLabels, sts.spec.template.metadata.labels)).toBe(true);
      }
    });

    it('the cluster config sets max_payload 8MB and is accepted by nats-server with the generated auth.conf', () => {
      expect(conf).toMatch(/^\s*max_payload:\s*8MB\s*$/m);
      const include = /^\s*include\s+"([^"]+)"/m.exec(conf)![1];
      const check = natsServerAccepts(conf, { POD_NAME: 'nats-0' }, { [include]: secretFile('auth.conf') });
      expect(check.stderr).toContain('is valid');
      expect(check.status).toBe(0);
    });
  });
});

describe('deploy/nats/nats.conf (local single node)', () => {
  const conf = readFileSync(join(deployDir, 'nats/nats.conf'), 'utf8');

  it('enables JetStream with max_payload 8MB and bus users, and is accepted by nats-server', () => {
    expect(conf).toMatch(/^\s*max_payload:\s*8MB\s*$/m);
    expect(conf).toMatch(/^jetstream\s*\{/m);
    expect(conf).toMatch(/^include "auth\.conf"$/m);
    const check = natsServerAccepts(conf, {}, { 'auth.conf': secretFile('auth.conf') });
    expect(check.stderr).toContain('is valid');
    expect(check.status).toBe(0);
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = readFileSync(join(deployDir, 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('builds with npm ci and turbo, then runs the chosen service as a non-root user', () => {
    expect(dockerfile).toMatch(/^FROM node:20-slim AS build$/m);
    expect(dockerfile).toMatch(/npm ci && npx turbo run build/);
    expect(runtime).toMatch(/^FROM node:20-slim$/m);
    expect(runtime).toMatch(/^ARG SERVICE$/m);
    expect(runtime).toMatch(/^USER (?!root\b|0\b)\S+$/m);
    expect(runtime).toContain('services/$SERVICE/dist/main.js');
  });

  it('builds the native kernels in the image (a C compiler in the build stage) and never copies the host\'s', () => {
    const build = dockerfile.slice(0, dockerfile.lastIndexOf('\nFROM '));
    expect(build).toMatch(/apt-get install -y --no-install-recommends gcc libc6-dev/);
    expect(build.indexOf('gcc')).toBeLessThan(build.indexOf('npx turbo run build'));
    expect(readFileSync(join(deployDir, 'Dockerfile.dockerignore'), 'utf8')).toMatch(/^packages\/stats\/build$/m);
  });
});
