#!/usr/bin/env node
// Renders a kustomization of deploy/k8s and validates every object against the Kubernetes
// API schemas, without kubectl or a cluster:
//
//   node scripts/k8s-check.mjs deploy/k8s/overlays/prod          # "35 objects valid" or the errors
//   node scripts/k8s-check.mjs --json deploy/k8s/overlays/prod   # {objects, errors} (the tests read it)
//
// Rendering implements the subset of kustomize that deploy/k8s uses — resources (files and
// kustomization directories), namespace, labels (pairs, metadata only), images, replicas,
// patches (strategic merge: maps merged, lists of named items merged by name, other lists
// replaced) and secretGenerator (envs, files; the content-hash name suffix and the references
// to it rewritten as kustomize does). Anything else in a kustomization is refused, so it
// cannot be silently ignored. packages/testkit/test/deploy-overlays.int.test.ts compares the
// result with `kubectl kustomize` where kubectl is installed.
//
// Validation uses the npm package kubernetes-models, generated from the upstream Kubernetes
// OpenAPI schemas: its validators (ajv) check types, formats and required fields; its
// TypeScript types (same source) check, through the TypeScript compiler's excess-property
// check, that no field is unknown — the JSON schemas alone allow any extra field, so a
// misspelled one would pass them.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'images', 'replicas', 'patches', 'secretGenerator']);
/** Kinds that have no namespace (of those deploy/k8s could hold). */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume', 'StorageClass', 'CustomResourceDefinition']);

function readYaml(path) {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0].message}`);
    return doc.toJS();
  }).filter((o) => o !== null && o !== undefined);
}

const isMap = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Strategic merge of `patch` into `base` (the subset described above). */
function merge(base, patch) {
  if (isMap(base) && isMap(patch)) {
    const out = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = v === null ? undefined : k in base ? merge(base[k], v) : v;
    for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
    return out;
  }
  if (Array.isArray(base) && Array.isArray(patch) && patch.every((p) => isMap(p) && typeof p.name === 'string') && base.every((b) => isMap(b) && typeof b.name === 'string')) {
    const out = base.map((b) => {
      const p = patch.find((x) => x.name === b.name);
      return p ? merge(b, p) : b;
    });
    for (const p of patch) if (!base.some((b) => b.name === p.name)) out.push(p);
    return out;
  }
  return patch;
}

/**
 * The name suffix of a generated Secret: 10 characters of a SHA-256 of kind, name, type and
 * data, as kustomize makes it — but not the same characters (kustomize's encoding differs in
 * a detail not reproduced here): content-addressed all the same, so a changed Secret still
 * gets a new name and rolls the pods that use it.
 */
function secretHash(secret) {
  const data = Object.fromEntries(Object.keys(secret.data).sort().map((k) => [k, secret.data[k]]));
  const encoded = JSON.stringify({ data, kind: 'Secret', name: secret.metadata.name, type: secret.type });
  const hex = createHash('sha256').update(encoded).digest('hex').slice(0, 10);
  return hex.replace(/[013ae]/g, (c) => ({ 0: 'g', 1: 'h', 3: 'k', a: 'm', e: 't' })[c]);
}

function generateSecret(dir, gen) {
  const data = {};
  for (const env of gen.envs ?? []) {
    for (const line of readFileSync(join(dir, env), 'utf8').split('\n')) {
      if (line.trim() === '' || line.trim().startsWith('#')) continue;
      const eq = line.indexOf('=');
      data[line.slice(0, eq)] = Buffer.from(line.slice(eq + 1)).toString('base64');
    }
  }
  for (const file of gen.files ?? []) data[basename(file)] = readFileSync(join(dir, file)).toString('base64');
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: gen.name }, type: 'Opaque', data };
  return { secret, hashed: `${gen.name}-${secretHash(secret)}` };
}

/** Every place a pod template names a Secret. */
function renameSecrets(obj, names) {
  const pod = obj.spec?.template?.spec;
  if (!pod) return;
  for (const c of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
    for (const f of c.envFrom ?? []) if (f.secretRef && names.has(f.secretRef.name)) f.secretRef.name = names.get(f.secretRef.name);
    for (const e of c.env ?? []) {
      const ref = e.valueFrom?.secretKeyRef;
      if (ref && names.has(ref.name)) ref.name = names.get(ref.name);
    }
  }
  for (const v of pod.volumes ?? []) if (v.secret && names.has(v.secret.secretName)) v.secret.secretName = names.get(v.secret.secretName);
}

const matches = (o, p) => o.kind === p.kind && o.metadata?.name === p.metadata?.name;

/** The objects `kubectl kustomize <dir>` would print (in no particular order). */
export function render(dir) {
  const file = ['kustomization.yaml', 'kustomization.yml'].map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!file) throw new Error(`${dir}: no kustomization.yaml`);
  const k = readYaml(file)[0];
  const unknown = Object.keys(k).filter((f) => !KNOWN_FIELDS.has(f));
  if (unknown.length > 0) throw new Error(`${file}: ${unknown.join(', ')} not supported by scripts/k8s-check.mjs (it renders a subset of kustomize)`);
  let objects = [];
  for (const r of k.resources ?? []) {
    const path = join(dir, r);
    objects.push(...(statSync(path).isDirectory() ? render(path) : readYaml(path)));
  }
  const renamed = new Map();
  for (const gen of k.secretGenerator ?? []) {
    const { secret, hashed } = generateSecret(dir, gen);
    secret.metadata.name = hashed;
    renamed.set(gen.name, hashed);
    objects.push(secret);
  }
  for (const o of objects) renameSecrets(o, renamed);
  for (const p of k.patches ?? []) {
    if (!p.path || p.target || p.patch) throw new Error(`${file}: only patches with a path (strategic merge, target from the patch) are supported`);
    for (const patch of readYaml(join(dir, p.path))) {
      const i = objects.findIndex((o) => matches(o, patch));
      if (i < 0) throw new Error(`${file}: patch ${p.path} matches no ${patch.kind} ${patch.metadata?.name}`);
      objects[i] = merge(objects[i], patch);
    }
  }
  objects = objects.map((o) => JSON.parse(JSON.stringify(o)));
  for (const o of objects) {
    if (k.namespace && !CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
    for (const l of k.labels ?? []) {
      if (l.includeSelectors || l.includeTemplates) throw new Error(`${file}: labels with includeSelectors/includeTemplates are not supported`);
      o.metadata.labels = { ...o.metadata.labels, ...l.pairs };
    }
    for (const r of k.replicas ?? []) if (o.metadata.name === r.name && o.spec && ['Deployment', 'StatefulSet', 'ReplicaSet'].includes(o.kind)) o.spec.replicas = r.count;
    const pod = o.spec?.template?.spec;
    for (const c of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) {
      const name = c.image.split('@')[0].replace(/:[^/]*$/, '');
      const img = (k.images ?? []).find((i) => i.name === name);
      if (img) c.image = `${img.newName ?? name}:${img.newTag ?? (c.image.slice(name.length + 1) || 'latest')}`;
    }
  }
  return objects;
}

/** Errors of the ajv validators generated from the upstream OpenAPI schemas, per object. */
async function schemaErrors(objects) {
  const errors = [];
  for (const [i, o] of objects.entries()) {
    const what = `${o.kind} ${o.metadata?.name}`;
    let models;
    try {
      models = await import(`kubernetes-models/${o.apiVersion}`);
    } catch {
      errors.push({ object: i, what, message: `unknown apiVersion ${o.apiVersion}`, unknown: true });
      continue;
    }
    const Model = models[o.kind];
    if (!Model) {
      errors.push({ object: i, what, message: `unknown kind ${o.kind} in ${o.apiVersion}`, unknown: true });
      continue;
    }
    try {
      new Model(o).validate();
    } catch (err) {
      errors.push({ object: i, what, message: String(err.message ?? err) });
    }
  }
  return errors;
}

/** Type errors of the objects as literals of kubernetes-models' interfaces: unknown fields and wrong types. */
function typeErrors(objects) {
  // A virtual module at the repository root, so `kubernetes-models` resolves from node_modules.
  const file = join(root, '__k8s_check__.ts');
  const starts = [];
  let text = '';
  objects.forEach((o, i) => {
    text += `import type { I${o.kind} as T${i} } from 'kubernetes-models/${o.apiVersion}';\n`;
  });
  objects.forEach((o, i) => {
    starts.push(text.length);
    text += `export const o${i}: T${i} = ${JSON.stringify(o, null, 1)};\n`;
  });
  const options = { strict: true, noEmit: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, skipLibCheck: true, types: [] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (name === file ? ts.createSourceFile(name, text, lang) : getSourceFile(name, lang, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? text : readFile(name));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === file).map((d) => {
    let i = starts.findLastIndex((s) => s <= (d.start ?? 0));
    if (i < 0) i = 0;
    const o = objects[i];
    // The path of the field: the keys of the lines above the error at lower indentation.
    const end = text.indexOf('\n', d.start ?? 0);
    const lines = text.slice(starts[i], end < 0 ? undefined : end).split('\n');
    const path = [];
    let indent = Infinity;
    for (let l = lines.length - 1; l >= 0; l--) {
      const m = /^( *)"([^"]+)":/.exec(lines[l]);
      if (m && m[1].length < indent) {
        indent = m[1].length;
        path.unshift(m[2]);
      }
    }
    return { object: i, what: `${o.kind} ${o.metadata?.name}`, path: path.join('.'), message: ts.flattenDiagnosticMessageText(d.messageText, ' ') };
  });
}

/** Every problem of `objects` against the Kubernetes schemas ([] when all are valid). */
export async function validate(objects) {
  const errors = await schemaErrors(objects);
  // Objects of an unknown apiVersion or kind have no type to check against (already reported).
  const unknown = new Set(errors.filter((e) => e.unknown).map((e) => e.object));
  const known = objects.map((o, i) => i).filter((i) => !unknown.has(i));
  const typed = typeErrors(known.map((i) => objects[i])).map((e) => ({ ...e, object: known[e.object] }));
  return [...errors.map(({ unknown: _, ...e }) => e), ...typed];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const dir = args.find((a) => !a.startsWith('--'));
  if (!dir) {
    console.error('usage: node scripts/k8s-check.mjs [--json] <kustomization directory>');
    process.exit(2);
  }
  let objects;
  try {
    objects = render(resolve(dir));
  } catch (err) {
    if (json) console.log(JSON.stringify({ objects: [], errors: [{ message: `cannot render: ${err.message}` }] }));
    else console.error(`cannot render ${dir}: ${err.message}`);
    process.exit(1);
  }
  const errors = await validate(objects);
  if (json) console.log(JSON.stringify({ objects, errors }));
  else if (errors.length === 0) console.log(`${objects.length} objects valid`);
  else for (const e of errors) console.error(`${e.what}${e.path ? ` (${e.path})` : ''}: ${e.message}`);
  process.exit(errors.length === 0 ? 0 : 1);
}
