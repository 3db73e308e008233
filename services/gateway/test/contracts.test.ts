import { allContracts, subjectOf, subjects, type Contract } from '@sml/bus';
import { openApiDocument } from '../src/openapi';
import { routes } from '../src/routes';

// Each bus operation is declared once (@sml/bus contracts): the route that calls it and the
// service that answers it both take that contract. These checks keep the two sides and the
// OpenAPI document from drifting apart.
describe('contracts and routes', () => {
  const declared = new Set(allContracts());
  const name = (c: Contract) => `${c.service}.${c.op}`;

  it('every route calls a declared contract that is not internal', () => {
    const strays = routes.filter((r) => !declared.has(r.contract) || r.contract.internal).map((r) => r.operationId);
    expect(strays).toEqual([]);
  });

  it('every contract that is not internal has a route, and no internal one has', () => {
    const routed = new Set(routes.map((r) => r.contract));
    expect(allContracts().filter((c) => !c.internal && !routed.has(c)).map(name)).toEqual([]);
    expect(allContracts().filter((c) => c.internal && routed.has(c)).map(name)).toEqual([]);
  });

  it('a route documents every error of its contract (its own edge codes besides)', () => {
    const doc = openApiDocument(routes, '') as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, { description: string }> }>> };
    const documented = new Map<string, Set<string>>();
    for (const methods of Object.values(doc.paths)) {
      for (const op of Object.values(methods)) {
        const lines = Object.values(op.responses).flatMap((r) => r.description.split('\n'));
        documented.set(op.operationId, new Set(lines.map((l) => l.split(':')[0])));
      }
    }
    const missing = routes.flatMap((r) => [...r.contract.errors, ...(r.errors ?? [])]
      .filter((code) => !documented.get(r.operationId)?.has(code)).map((code) => `${r.operationId}: ${code}`));
    expect(missing).toEqual([]);
  });

  it('a contract\'s subject is the one its service has always answered on', () => {
    const table = subjects as unknown as Record<string, Record<string, string>>;
    for (const c of allContracts()) {
      expect(subjectOf(c)).toBe(c.service === 'projects' ? subjects.projects(c.op as never) : table[c.service][c.op]);
    }
    expect(subjectOf(allContracts().find((c) => c.service === 'projects' && c.op === 'learn')!, 3)).toBe('sml.projects.3.learn');
  });

  it('operations are unique per service', () => {
    const names = allContracts().map(name);
    expect(new Set(names).size).toBe(names.length);
  });
});
