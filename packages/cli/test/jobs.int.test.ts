import { sml } from './run';
import { StandInGateway } from './standin';

const info = (jobId: number, current: number, maximum: number, state: { isStarted?: boolean; isDone?: boolean } = {}) => ({
  jobId, jobType: 'learn', owner: 'c1', startingDate: 0, current, maximum, isOnBoundedExecutor: false, isStarted: false, isDone: false, details: { p_id: 'p' }, ...state,
});

// `sml jobs …` against a stand-in gateway (the jobs service itself: services/jobs tests).
describe('sml jobs (against a stand-in gateway)', () => {
  let gw: StandInGateway;

  beforeAll(async () => {
    gw = await StandInGateway.start();
  });
  beforeEach(() => gw.reset());
  afterAll(() => gw.close());

  it('list shows progress as a percentage and a failed job as failed, reading each done job', async () => {
    gw.answer = (s) => {
      if (s.path.endsWith('/jobs')) {
        return {
          status: 200, statusString: 'OK', values: {
            jobinfolist: [info(1, 30408704, 38034490, { isStarted: true }), info(2, 7, 7, { isStarted: true, isDone: true }), info(3, 2, 7, { isStarted: true, isDone: true }), info(4, 0, 0)],
          },
        };
      }
      return s.path.endsWith('/jobs/3') ? { status: 500, statusString: 'line 3: bad' } : { status: 200, statusString: 'OK' };
    };
    const r = await sml(['jobs', 'list'], gw.env);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      expect.stringMatching(/^JOB +TYPE +OWNER +STARTED +PROGRESS +STATE +PROJECT$/),
      expect.stringMatching(/^1 +learn +c1 +79% +running +p$/),
      expect.stringMatching(/^2 +learn +c1 +100% +done +p$/),
      expect.stringMatching(/^3 +learn +c1 +28% +failed +p$/),
      expect.stringMatching(/^4 +learn +c1 +queued +p$/),
      '',
    ]);
    expect(gw.seen.map((s) => s.path).sort()).toEqual(['/symetry/rest/c1/jobs', '/symetry/rest/c1/jobs/2', '/symetry/rest/c1/jobs/3']);
    gw.reset();
    gw.answer = () => ({ status: 200, statusString: 'OK', values: { jobinfolist: [info(2, 7, 7, { isDone: true })] } });
    expect(JSON.parse((await sml(['--json', 'jobs', 'list'], gw.env)).stdout).values.jobinfolist).toHaveLength(1);
    expect(gw.seen).toHaveLength(1);
  });

  it('get --wait shows the progress on stderr only and prints the result on stdout', async () => {
    gw.answer = (_s, i) => (i < 2 ? { status: 202, statusString: 'OK', values: { jobinfo: info(5, (i + 1) * 4, 8, { isStarted: true }) } }
      : { status: 200, statusString: 'Job finished', values: { learnReport: { rowsLearned: 8 } } });
    const r = await sml(['jobs', 'get', '5', '--wait'], gw.env);
    expect(r).toEqual({ code: 0, stdout: 'Job finished\n{\n  "learnReport": {\n    "rowsLearned": 8\n  }\n}\n', stderr: 'job 5: 50% (4/8)\njob 5: 100% (8/8)\n' });
    const json = await sml(['--json', 'jobs', 'get', '5'], gw.env);
    expect(() => JSON.parse(json.stdout)).not.toThrow();
  });
});

describe('a refused signature (against a stand-in gateway)', () => {
  let gw: StandInGateway;

  beforeAll(async () => {
    gw = await StandInGateway.start();
  });
  afterAll(() => gw.close());

  it("prints what the 401's values say to check under the status, never the secret", async () => {
    gw.answer = () => ({ status: 401, statusString: 'Invalid Signature', values: { stringToSign: 'GET\n\nSECRETKEY\n', clockSkewSeconds: -3, hint: 'Compare stringToSign line by line.' } });
    const r = await sml(['jobs', 'list'], gw.env);
    expect(r).toEqual({ code: 1, stdout: '', stderr: "Invalid Signature\nclock skew: your Sym-date is -3 s from the server's clock\nCompare stringToSign line by line.\n" });
    expect(r.stderr).not.toContain(gw.env.SML_SECRET);
  });
});
