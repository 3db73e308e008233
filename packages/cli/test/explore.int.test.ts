import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sml } from './run';
import { StandInGateway } from './standin';
import { findAll, parseXml } from './xml';

// The explore service is being built: these tests pin the requests of the exploration
// commands (API.md §6) against a stand-in gateway that checks each signature.
describe('sml explore, density, matrix (against a stand-in gateway)', () => {
  let gw: StandInGateway;
  let dir: string;
  const base = '/symetry/rest/c1/projects';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sml-cli-explore-'));
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('explore', () => {
    it('one MLContext per --inputs: names → inputAttributeNames, indexes → inputAttributes; one table per result map', async () => {
      gw.answer = () => ({ status: 200, statusString: 'OK', values: { KSVDMap: { values: [{ covar: 2.5, linCorr: 'NaN' }, { covar: -1, linCorr: 0.25 }] }, smlInfo: {} } });
      const r = await sml(['explore', 'bi', 'p1', '--inputs', 'x,y', '--inputs', '0,2'], gw.env);
      expect(r).toEqual({ code: 0, stdout: 'KEY      VALUE\ncovar    2.5\nlinCorr  NaN\n\nKEY      VALUE\ncovar    -1\nlinCorr  0.25\n', stderr: '' });
      const [s] = gw.seen;
      expect([s.method, s.path, Object.fromEntries(s.query)]).toEqual(['POST', `${base}/p1/explore`, { metric: 'bi' }]);
      expect(s.body).toEqual({ values: [
        { inputAttributeNames: ['x', 'y'], extraParameters: {} },
        { inputAttributes: ['0', '2'], extraParameters: {} },
      ] });
    });

    it('--targets once applies to every exploration, --param fills extraParameters, --use-local is sent', async () => {
      gw.answer = () => ({ status: 200, statusString: 'OK', values: { KSVDMap: { values: [] } } });
      await sml(['explore', 'anova', 'p1', '--inputs', 'x', '--inputs', 'z', '--targets', 'g$a,g$b', '--param', 'k=v', '--use-local'], gw.env);
      expect(Object.fromEntries(gw.seen[0].query)).toEqual({ metric: 'anova', useLocal: 'true' });
      expect(gw.seen[0].body).toEqual({ values: [
        { inputAttributeNames: ['x'], targetAttributeNames: ['g$a', 'g$b'], extraParameters: { k: 'v' } },
        { inputAttributeNames: ['z'], targetAttributeNames: ['g$a', 'g$b'], extraParameters: { k: 'v' } },
      ] });
    });

    it('--targets once per --inputs pairs them in order; index targets → targets', async () => {
      await sml(['explore', 'chi2', 'p1', '--inputs', 'a', '--targets', '3,4', '--inputs', 'b', '--targets', 'c'], gw.env);
      expect((gw.seen[0].body as { values: unknown[] }).values).toEqual([
        { inputAttributeNames: ['a'], targets: ['3', '4'], extraParameters: {} },
        { inputAttributeNames: ['b'], targetAttributeNames: ['c'], extraParameters: {} },
      ]);
    });

    it('--async asks for a job and prints its id', async () => {
      gw.answer = () => ({ status: 202, statusString: 'Job Created', headers: { 'sym-job-id': '41' } });
      const r = await sml(['explore', 'uni', 'p1', '--inputs', 'x', '--async'], gw.env);
      expect(Object.fromEntries(gw.seen[0].query)).toEqual({ metric: 'uni', async: 'true' });
      expect(r).toEqual({ code: 0, stdout: 'Job Created: job 41 (sml jobs get 41 --wait)\n', stderr: '' });
    });

    it('--json prints the raw envelope; a refused metric exits 1 with its statusString', async () => {
      gw.answer = () => ({ status: 400, statusString: 'bad metric:[foo]' });
      const r = await sml(['--json', 'explore', 'foo', 'p1', '--inputs', 'x'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '{"statusCode":400,"statusString":"bad metric:[foo]","values":{}}\n', stderr: 'bad metric:[foo]\n' });
    });

    it('a list mixing indexes and names is a usage error and sends nothing', async () => {
      const r = await sml(['explore', 'bi', 'p1', '--inputs', '0,y'], gw.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/'0,y' mixes attribute indexes and names/);
      expect(gw.seen).toEqual([]);
    });

    it('--targets given neither once nor once per --inputs is refused before sending', async () => {
      const r = await sml(['explore', 'chi2', 'p1', '--inputs', 'a', '--targets', 'b', '--targets', 'c'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'sml: --targets is given 2 times for 1 --inputs: give it once (the same targets for all) or once per --inputs\n' });
      expect(gw.seen).toEqual([]);
    });

    it('--inputs is required', async () => {
      const r = await sml(['explore', 'uni', 'p1'], gw.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/required option '--inputs <attributes>' not specified/);
    });
  });

  describe('density', () => {
    const densityOf = (attrName: string, histogram: number[]) => () => ({
      status: 200, statusString: 'OK',
      values: { densityList: { values: [{ attrName, min: 0, max: 1.2, width: 0.3, histogram, valueForMissing: 2 }] } },
    });

    it('sends one MLContext with the name and hist_bins, and prints the bins', async () => {
      gw.answer = densityOf('x', [1, 0, 4, 2]);
      const r = await sml(['density', 'p1', 'x', '--bins', '4'], gw.env);
      expect(gw.seen.map((s) => [s.path, s.body])).toEqual([[`${base}/p1/densityEstimate`, { values: [{ inputAttributeNames: ['x'], extraParameters: { hist_bins: '4' } }] }]]);
      expect(r).toEqual({
        code: 0,
        stdout: 'x: 4 bins of width 0.3 over [0, 1.2]; missing: 2\nLOWER  UPPER  COUNT\n0      0.3    1\n0.3    0.6    0\n0.6    0.9    4\n0.9    1.2    2\n',
        stderr: '',
      });
    });

    it('--given asks for the conditional density with the names [given, attribute]; --normalized prints fractions', async () => {
      gw.answer = densityOf('conditional_pair[flag,x]', [0.25, 0.75]);
      const r = await sml(['density', 'p1', 'x', '--given', 'flag', '--normalized'], gw.env);
      expect(gw.seen[0].path).toBe(`${base}/p1/conditionalDensityEstimate`);
      expect(gw.seen[0].body).toEqual({ values: [{ inputAttributeNames: ['flag', 'x'], extraParameters: { hist_bins: '20', hist_is_normalized: 'true' } }] });
      expect(r.stdout.split('\n').slice(0, 3)).toEqual(['conditional_pair[flag,x]: 2 bins of width 0.3 over [0, 1.2]; missing: 2', 'LOWER  UPPER  FRACTION', '0      0.3    0.25']);
    });

    it('--plot writes an SVG bar chart with one bar per bin', async () => {
      gw.answer = densityOf('x', [1, 0, 4, 2]);
      const path = join(dir, 'density.svg');
      const r = await sml(['density', 'p1', 'x', '--bins', '4', '--plot', path], gw.env);
      expect(r.stdout.endsWith(`plot: ${path}\n`)).toBe(true);
      const svg = parseXml(readFileSync(path, 'utf8'));
      expect(findAll(svg, (e) => e.attrs.class === 'bar')).toHaveLength(4);
      expect(findAll(svg, (e) => e.name === 'text').map((t) => t.text)).toContain('Density of x (project p1)');
    });

    it('--log draws the counts on a log scale: ticks at powers of ten, no bar for an empty bin; --log needs --plot', async () => {
      gw.answer = densityOf('x', [1, 0, 400, 20]);
      const path = join(dir, 'log.svg');
      const r = await sml(['density', 'p1', 'x', '--bins', '4', '--plot', path, '--log'], gw.env);
      expect(r.code).toBe(0);
      const svg = parseXml(readFileSync(path, 'utf8'));
      expect(findAll(svg, (e) => e.attrs.class === 'bar')).toHaveLength(3);
      const texts = findAll(svg, (e) => e.name === 'text').map((t) => t.text);
      expect(texts).toEqual(expect.arrayContaining(['1', '10', '100', '1000', 'rows (log scale)']));
      expect(await sml(['density', 'p1', 'x', '--log'], gw.env)).toEqual({ code: 1, stdout: '', stderr: 'sml: --log scales the plot: give --plot <file.svg>\n' });
    });

    it('histograms off: exit 1 with the 400 statusString, no plot written', async () => {
      gw.answer = () => ({ status: 400, statusString: 'Histograms for project id[p1] for Customer id [c1] are not enabled' });
      const path = join(dir, 'none.svg');
      const r = await sml(['density', 'p1', 'x', '--plot', path], gw.env);
      expect(r).toEqual({ code: 1, stdout: '', stderr: 'Histograms for project id[p1] for Customer id [c1] are not enabled\n' });
      expect(existsSync(path)).toBe(false);
    });
  });

  describe('matrix', () => {
    /** The submission answers 202 with job 7; the job runs for `running` polls, then finishes with `values`. */
    const job = (values: unknown, running = 1) => (s: { method: string }, i: number) => {
      if (s.method === 'POST') return { status: 202, statusString: 'Job Created', headers: { 'sym-job-id': '7' } };
      return i <= running ? { status: 202, statusString: 'Job still running', values: { jobinfo: { jobId: 7 } } } : { status: 200, statusString: 'Job is finished', values };
    };

    it('pca submits the job, polls until it has finished and prints values and loadings', async () => {
      gw.answer = job({ pcaList: [{ attributeNames: ['x', 'y'], pcaVectors: [[0.7, -0.7], [0.7, 0.7]], pcaValues: [1.9, 0.1], pcaSumValues: [0.95, 1] }] });
      const r = await sml(['matrix', 'pca', 'p1', '--inputs', 'x,y', '--param', 'pca_use_covariance=true'], gw.env);
      expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([`POST ${base}/p1/explorepca`, 'GET /symetry/rest/c1/jobs/7', 'GET /symetry/rest/c1/jobs/7']);
      expect(gw.seen[0].body).toEqual({ values: [{ inputAttributeNames: ['x', 'y'], extraParameters: { pca_use_covariance: 'true' } }] });
      expect(r).toEqual({
        code: 0,
        stdout: 'COMPONENT  VALUE  SUM\n1          1.9    0.95\n2          0.1    1\n\nATTRIBUTE  PC1  PC2\nx          0.7  -0.7\ny          0.7  0.7\n',
        stderr: 'job 7: running\n',
      });
    });

    it('pca --plot writes the scree: variance explained per component and cumulative, on [0, 1]; --plot is for pca only', async () => {
      gw.answer = job({ pcaList: [{ attributeNames: ['x', 'y', 'z'], pcaVectors: [], pcaValues: [2.1, 0.6, 0.3], pcaSumValues: [0.7, 0.9, 1] }] }, 0);
      const path = join(dir, 'scree.svg');
      const r = await sml(['matrix', 'pca', 'p1', '--inputs', 'x,y,z', '--plot', path], gw.env);
      expect(r.stdout.endsWith(`\n\nplot: ${path}\n`)).toBe(true);
      const svg = parseXml(readFileSync(path, 'utf8'));
      const lines = findAll(svg, (e) => e.attrs.class === 'line');
      expect(lines.map((l) => l.attrs['data-series'])).toEqual(['explained', 'cumulative']);
      expect(findAll(svg, (e) => e.attrs.class === 'point')).toHaveLength(6);
      // The explained line falls (0.7, 0.2, 0.1), the cumulative one rises to 1: y grows downwards in SVG.
      const ys = (l: typeof lines[number]) => l.attrs.points.split(' ').map((p) => Number(p.split(',')[1]));
      const [explained, cumulative] = lines.map(ys);
      expect(explained[0]).toBeLessThan(explained[1]);
      expect(explained[1]).toBeLessThan(explained[2]);
      expect(cumulative[2]).toBeLessThan(cumulative[0]);
      expect(findAll(svg, (e) => e.name === 'text').map((t) => t.text)).toEqual(expect.arrayContaining(['PCA scree (project p1)', 'principal component']));
      gw.reset();
      expect(await sml(['matrix', 'vif', 'p1', '--inputs', 'x,y', '--plot', path], gw.env)).toEqual({ code: 1, stdout: '', stderr: 'sml: --plot draws a PCA scree: it goes with matrix pca\n' });
      expect(gw.seen).toEqual([]);
    });

    it('vif and svdfs print their maps; svdfs sends the targets', async () => {
      gw.answer = job({ KSVDMap: { values: [{ x: 1.5, y: 'Infinity' }] } }, 0);
      expect((await sml(['matrix', 'vif', 'p1', '--inputs', '0,1'], gw.env)).stdout).toBe('ATTRIBUTE  VIF\nx          1.5\ny          Infinity\n');
      expect(gw.seen[0].path).toBe(`${base}/p1/vif`);
      gw.reset();
      gw.answer = job({ KSVSMap: { values: [{ 0: 'x', 2: 'z' }] } }, 0);
      expect((await sml(['matrix', 'svdfs', 'p1', '--inputs', 'x,y,z', '--targets', 't'], gw.env)).stdout).toBe('INDEX  ATTRIBUTE\n0      x\n2      z\n');
      expect(gw.seen[0].body).toEqual({ values: [{ inputAttributeNames: ['x', 'y', 'z'], targetAttributeNames: ['t'], extraParameters: {} }] });
    });

    it('svd prints the singular values, U and V', async () => {
      gw.answer = job({ svdList: [{ attributeNames: ['x', 'y'], singularValues: [1.5, 0.5], u: [[1, 0], [0, 1]], v: [[0, 1], [1, 0]] }] }, 0);
      const r = await sml(['matrix', 'svd', 'p1', '--inputs', 'x,y'], gw.env);
      expect(gw.seen[0].path).toBe(`${base}/p1/exploresvd`);
      expect(r.stdout).toBe('COMPONENT  SINGULAR VALUE\n1          1.5\n2          0.5\n\nU\nATTRIBUTE  U1  U2\nx          1   0\ny          0   1\n\nV\nATTRIBUTE  V1  V2\nx          0   1\ny          1   0\n');
    });

    it('a refused submission exits 1 without polling', async () => {
      gw.answer = () => ({ status: 400, statusString: 'Less than 1 target for svd' });
      expect(await sml(['matrix', 'svdfs', 'p1', '--inputs', 'x,y'], gw.env)).toEqual({ code: 1, stdout: '', stderr: 'Less than 1 target for svd\n' });
      expect(gw.seen).toHaveLength(1);
    });

    it('a failed job exits 1 with its statusString; --json prints only the final envelope', async () => {
      gw.answer = (s, i) => (i === 0 ? job(null)(s, i) : { status: 500, statusString: 'Error computing SVD, no values found' });
      const r = await sml(['--json', 'matrix', 'svdfs', 'p1', '--inputs', 'a,b', '--targets', 'c'], gw.env);
      expect(r).toEqual({ code: 1, stdout: '{"statusCode":500,"statusString":"Error computing SVD, no values found","values":{}}\n', stderr: 'Error computing SVD, no values found\n' });
    });

    it('an unknown kind is a usage error', async () => {
      const r = await sml(['matrix', 'lda', 'p1', '--inputs', 'x,y'], gw.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/value 'lda' is invalid for argument 'kind'. Allowed choices are pca, svd, vif, svdfs/);
    });
  });
});
